"""``tbe.tvm``: the same old-TVM API as ``te.tvm`` (:mod:`te_compat.te.tvm`) — the same names and the same submodule
objects (``tbe.tvm.expr is te.tvm.expr``; likewise ``api``, ``tensor``, ``schedule``, ``target`` ...) — plus
``tbe.tvm.topi``, which is npusim's ``topi`` (:mod:`te_compat.topi`): MindSpore's own custom TBE ops import
``from tbe.tvm.topi import generic`` and ``from tbe.tvm.topi.cce import util``.

Each such submodule is entered in ``sys.modules`` under this package's name too (``te_compat.tbe.tvm.expr``,
``te_compat.tbe.tvm.topi``), as ``os`` does for ``os.path``: one module object per module, so its children
(``tbe.tvm.topi.cce.util``) resolve to the same objects as ``topi.cce.util``.
"""
import sys
from types import ModuleType

import te_compat.te.tvm as _te_tvm
import te_compat.topi as topi
from te_compat.te.tvm import *  # noqa: F401,F403
from te_compat.te.tvm import __all__ as _te_tvm_names


def _shared_submodules() -> dict:
    """name → module: te.tvm's own submodules (api, expr, tensor ...) and ``topi``."""
    shared = {name: value for name, value in vars(_te_tvm).items()
              if isinstance(value, ModuleType) and value.__name__.startswith(_te_tvm.__name__ + ".")}
    shared["topi"] = topi
    return shared


for _name, _module in _shared_submodules().items():
    sys.modules.setdefault(f"{__name__}.{_name}", _module)
    globals()[_name] = _module
del _name, _module

__all__ = sorted({*_te_tvm_names, "topi"})
