"""``te.lang.cce.te_compute.util``: shape helpers op files import from here, plus every DSL function."""
from te_compat.surface.lazy import make_dsl_dir, make_dsl_getattr
from te_compat.surface.shapes import axis_check, get_shape_size, refine_axis, shape_to_list  # noqa: F401

_OWN_NAMES = ("axis_check", "get_shape_size", "refine_axis", "shape_to_list")
__getattr__ = make_dsl_getattr(globals(), _OWN_NAMES)
__dir__ = make_dsl_dir(globals())
