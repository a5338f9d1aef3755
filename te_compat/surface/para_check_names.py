"""The one name set of ``op_utils`` / ``para_check`` (both spellings serve the same functions).

Besides the checks of :mod:`te_compat.surface.checks`, CANN's ``para_check`` took over the ``topi.cce.util``
checks (check_shape_rule, check_dtype_rule, check_tensor_shape_size, check_and_init_5hdc_reduce_support ...);
they are the same functions as ``topi.cce.util``'s.
"""
from te_compat.surface.checks import *  # noqa: F401,F403
from te_compat.surface.checks import __all__ as _check_names
from te_compat.surface.legacy_util import (  # noqa: F401
    check_and_init_5hdc_reduce_support, check_dtype_rule, check_input_type, check_reduce_shape_rule, check_shape_rule,
    check_shape_size, check_tensor_shape_size)
from te_compat.surface.shapes import (  # noqa: F401
    axis_check, broadcast_shapes, refine_shape_axes, refine_shapes_for_broadcast, scalar2tensor_one, shape_to_list,
    squeeze_shape, wrap_axes_to_positive)

_LEGACY_NAMES = ["check_and_init_5hdc_reduce_support", "check_dtype_rule", "check_input_type",
                 "check_reduce_shape_rule", "check_shape_rule", "check_shape_size", "check_tensor_shape_size"]
__all__ = [*_check_names, *_LEGACY_NAMES, "axis_check", "broadcast_shapes", "refine_shape_axes",
           "refine_shapes_for_broadcast", "scalar2tensor_one", "shape_to_list", "squeeze_shape",
           "wrap_axes_to_positive"]
