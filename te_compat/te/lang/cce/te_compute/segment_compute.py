"""``te.lang.cce.te_compute.segment_compute``: every DSL function (see the package docstring)."""
from te_compat.surface.lazy import make_dsl_dir, make_dsl_getattr

__getattr__ = make_dsl_getattr(globals())
__dir__ = make_dsl_dir(globals())
