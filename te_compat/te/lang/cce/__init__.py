"""``te.lang.cce``: every DSL function of ``te_compat.dsl`` (resolved on first use), ``auto_schedule`` and
``cce_build_code``, the ``te_compute`` / ``te_schedule`` submodules and ``util`` (``te_compute.util``, which op
files reach as ``te.lang.cce.util.shape_to_list``)."""
from te_compat.surface.lazy import auto_schedule, cce_build_code, make_dsl_dir, make_dsl_getattr
from te_compat.surface.shapes import shape_to_list

_OWN_NAMES = ("auto_schedule", "cce_build_code", "shape_to_list", "util")
__getattr__ = make_dsl_getattr(globals(), _OWN_NAMES)
__dir__ = make_dsl_dir(globals())

from te_compat.te.lang.cce import te_compute, te_schedule  # noqa: E402,F401
from te_compat.te.lang.cce.te_compute import util  # noqa: E402,F401
