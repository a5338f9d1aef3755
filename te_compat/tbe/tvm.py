"""``tbe.tvm``: the same old-TVM API as ``te.tvm`` (:mod:`te_compat.te.tvm`), names and submodules."""
from te_compat.te.tvm import *  # noqa: F401,F403
from te_compat.te.tvm import __all__  # noqa: F401
