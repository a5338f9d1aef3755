"""``from te import tvm`` / ``from tbe import tvm``: CANN's old TVM API on Apache TVM 0.27.

Top-level names (placeholder, compute, const, var, size_var, reduce_axis, sum/max/min, comm_reducer, select,
exp/log/sqrt/..., all/any, convert, create_schedule, build_config) are in :mod:`.api`; submodules: ``target``
(``cce()``, ``current_target``), ``tensor`` (``tvm.tensor.Tensor``), ``expr``, ``intrin``, ``schedule``,
``build_module``, ``ir_builder`` (unsupported).  Tensors and expressions come as the surface wrappers of
:mod:`te_compat.surface.tvm_objects` (``dtype`` is a ``str``, as in CANN's TVM); no TVM class is modified.
"""
from te_compat.te.tvm import api, build_module, expr, intrin, ir_builder, schedule, target, tensor  # noqa: F401
from te_compat.te.tvm.api import *  # noqa: F401,F403
from te_compat.te.tvm.api import __all__ as _api_names
from te_compat.te.tvm.build_module import build_config  # noqa: F401
from te_compat.te.tvm.schedule import create_schedule  # noqa: F401
from tvm import cpu, tirx  # noqa: F401  (tvm.cpu(0) and the new IR namespace, for code that mixes APIs)

__all__ = [*_api_names, "api", "build_config", "build_module", "cpu", "create_schedule", "expr", "intrin",
           "ir_builder", "schedule", "target", "tensor", "tirx"]
