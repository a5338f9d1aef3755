"""``from te import tvm`` / ``from tbe import tvm``: CANN's old TVM API on Apache TVM 0.27.

Top-level names (placeholder, compute, const, var, size_var, reduce_axis, sum/max/min, comm_reducer, select,
exp/log/sqrt/..., all/any, convert, create_schedule, build_config) are in :mod:`.api`; submodules: ``target``
(``cce()``, ``current_target``), ``tensor`` (``tvm.tensor.Tensor``), ``expr``, ``intrin``, ``schedule``,
``build_module``, ``ir_builder`` (unsupported).  Importing this package installs :mod:`te_compat.pycompat`
(tensor dtypes as ``str``, ``collections.Iterable``).
"""
from te_compat import pycompat as _pycompat

_pycompat.install()

from te_compat.te.tvm import api, build_module, expr, intrin, ir_builder, schedule, target, tensor  # noqa: E402,F401
from te_compat.te.tvm.api import *  # noqa: E402,F401,F403
from te_compat.te.tvm.api import __all__ as _api_names  # noqa: E402
from te_compat.te.tvm.build_module import build_config  # noqa: E402,F401
from te_compat.te.tvm.schedule import create_schedule  # noqa: E402,F401
from tvm import cpu, tirx  # noqa: E402,F401  (tvm.cpu(0) and the new IR namespace, for code that mixes APIs)

__all__ = [*_api_names, "api", "build_config", "build_module", "cpu", "create_schedule", "expr", "intrin",
           "ir_builder", "schedule", "target", "tensor", "tirx"]
