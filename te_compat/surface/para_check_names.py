"""The one name set of ``op_utils`` / ``para_check`` (both spellings serve the same functions)."""
from te_compat.surface.checks import *  # noqa: F401,F403
from te_compat.surface.checks import __all__ as _check_names
from te_compat.surface.shapes import (  # noqa: F401
    axis_check, broadcast_shapes, refine_shape_axes, refine_shapes_for_broadcast, scalar2tensor_one, shape_to_list,
    squeeze_shape, wrap_axes_to_positive)

__all__ = [*_check_names, "axis_check", "broadcast_shapes", "refine_shape_axes", "refine_shapes_for_broadcast",
           "scalar2tensor_one", "shape_to_list", "squeeze_shape", "wrap_axes_to_positive"]
