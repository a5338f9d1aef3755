"""``te.utils.shape_util``: broadcast_shapes, refine_shape_axes, variable_shape ... (see
:mod:`te_compat.surface.shapes`)."""
from te_compat.surface.shape_util_names import *  # noqa: F401,F403
from te_compat.surface.shape_util_names import __all__  # noqa: F401
