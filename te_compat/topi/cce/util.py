"""``topi.cce.util``: check_kernel_name, check_shape_rule, check_dtype_rule, check_tensor_shape_size,
check_input_type, axis_check, shape_refine, refine_shape_axes, produce_shapes, is_scalar ... (see
:mod:`te_compat.surface.legacy_util`)."""
from te_compat.surface.legacy_util import *  # noqa: F401,F403
from te_compat.surface.legacy_util import __all__  # noqa: F401
