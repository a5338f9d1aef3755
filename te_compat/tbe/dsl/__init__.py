"""``tbe.dsl``: every DSL function of ``te_compat.dsl`` (resolved on first use), ``auto_schedule``, ``build``,
``classify`` (callable; also the module holding ``OpPatternMode``), ``compute()`` and ``var``."""
from te_compat.surface.context import compute, var  # noqa: F401
from te_compat.surface.lazy import auto_schedule, build, make_dsl_dir, make_dsl_getattr  # noqa: F401

_OWN_NAMES = ("api", "auto_schedule", "base", "build", "classify", "compute", "var")
__getattr__ = make_dsl_getattr(globals(), _OWN_NAMES)
__dir__ = make_dsl_dir(globals())

from te_compat.tbe.dsl import api, base, classify  # noqa: E402,F401
