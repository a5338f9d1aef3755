"""``tbe.dsl.api``: the same names as ``tbe.dsl`` (CANN's implementation module of them)."""
from te_compat.surface.context import compute, var  # noqa: F401
from te_compat.surface.classify import classify  # noqa: F401
from te_compat.surface.lazy import auto_schedule, build, make_dsl_dir, make_dsl_getattr  # noqa: F401

_OWN_NAMES = ("auto_schedule", "build", "classify", "compute", "var")
__getattr__ = make_dsl_getattr(globals(), _OWN_NAMES)
__dir__ = make_dsl_dir(globals())
