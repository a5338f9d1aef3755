"""``te.utils.op_utils`` (works with ``import *``): check_op_params and the REQUIRED_*/OPTION_* kinds,
check_shape, check_dtype, check_format, check_kernel_name, broadcast_shapes, refine_shape_axes ..."""
from te_compat.surface.para_check_names import *  # noqa: F401,F403
from te_compat.surface.para_check_names import __all__  # noqa: F401
