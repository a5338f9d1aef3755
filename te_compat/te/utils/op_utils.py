"""``te.utils.op_utils`` (works with ``import *``): check_op_params and the REQUIRED_*/OPTION_* kinds,
check_shape, check_dtype, check_format, check_kernel_name, broadcast_shapes, refine_shape_axes ..., and
``fusion_manager`` (CANN 2020's op_utils imported it, so ``from te.utils.op_utils import *`` brings it along)."""
from te_compat.surface.fusion import fusion_manager  # noqa: F401
from te_compat.surface.para_check_names import *  # noqa: F401,F403
from te_compat.surface.para_check_names import __all__ as _check_names

__all__ = [*_check_names, "fusion_manager"]
