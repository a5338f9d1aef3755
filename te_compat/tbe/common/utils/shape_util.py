"""``tbe.common.utils.shape_util``: broadcast_shapes, refine_shapes_for_broadcast, refine_shape_axes,
produce_shapes, shape_refine, axis_check, variable_shape, scalar2tensor_one, shape_to_list, simplify_axis_shape ..."""
from te_compat.surface.shape_util_names import *  # noqa: F401,F403
from te_compat.surface.shape_util_names import __all__  # noqa: F401
