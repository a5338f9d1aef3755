"""``te.lang.cce.te_compute``: CANN split the DSL over modules by family; each submodule here serves every DSL
function (a superset of the CANN module's names), so ``from te.lang.cce.te_compute.elewise_compute import vmuls``
works whichever module CANN had the function in."""
from te_compat.surface.lazy import make_dsl_dir, make_dsl_getattr

__getattr__ = make_dsl_getattr(globals())
__dir__ = make_dsl_dir(globals())

from te_compat.te.lang.cce.te_compute import (  # noqa: E402,F401
    broadcast_compute, cast_compute, common, concat_compute, elewise_compute, inplace_compute, reduction_compute,
    segment_compute, split_compute, util)
