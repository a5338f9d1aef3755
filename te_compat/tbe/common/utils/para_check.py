"""``tbe.common.utils.para_check``: the same names as ``te.utils.op_utils`` (check_op_params, REQUIRED_INPUT,
check_shape, check_dtype, check_kernel_name, is_scalar ...)."""
from te_compat.surface.para_check_names import *  # noqa: F401,F403
from te_compat.surface.para_check_names import __all__  # noqa: F401
