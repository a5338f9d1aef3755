"""A meta-path finder that serves alias package names (``mindspore.ops``) from npusim modules (``npusim.ms.ops``).

The alias and the real name are the same module object, so ``mindspore.Tensor is npusim.frontend.tensor.Tensor``.
A real MindSpore installed in the environment is shadowed only while the layer is installed.
"""
from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys

#: alias top-level package → the npusim package that provides it
ALIASES = {
    "mindspore": "npusim.ms",
    # the TBE import surface (issue 4): te / tbe / topi and CANN's impl.util.platform_adapter
    "te": "te_compat.te",
    "tbe": "te_compat.tbe",
    "topi": "te_compat.topi",
    "impl": "te_compat.impl",
}


class _AliasLoader(importlib.abc.Loader):
    def __init__(self, target: str):
        self.target = target

    def create_module(self, spec):
        module = importlib.import_module(self.target)
        _alias_loaded_submodules(spec.name, self.target)
        return module

    def exec_module(self, module):
        pass  # the target module is already executed


def _alias_loaded_submodules(alias: str, target: str) -> None:
    """Enter the already-imported submodules of ``target`` under ``alias`` too.

    Importing ``alias.sub`` later then finds it in ``sys.modules`` and leaves the parent's attribute ``sub`` alone,
    as in the real package: ``mindspore.ops.op_info_register`` stays the decorator its ``__init__`` imported, even
    after ``from mindspore.ops.op_info_register import TBERegOp``.
    """
    prefix = target + "."
    for name, module in list(sys.modules.items()):
        if name.startswith(prefix):
            sys.modules.setdefault(alias + name[len(target):], module)


class AliasFinder(importlib.abc.MetaPathFinder):
    """Resolves ``alias[.sub...]`` to ``target[.sub...]``."""

    def find_spec(self, fullname, path=None, target=None):
        top, _, rest = fullname.partition(".")
        base = ALIASES.get(top)
        if base is None:
            return None
        real = f"{base}.{rest}" if rest else base
        if importlib.util.find_spec(real) is None:
            return None
        return importlib.util.spec_from_loader(fullname, _AliasLoader(real))


_finder = AliasFinder()


def install() -> None:
    """Put the alias finder first on ``sys.meta_path`` (idempotent)."""
    if _finder not in sys.meta_path:
        sys.meta_path.insert(0, _finder)


def uninstall() -> None:
    """Remove the finder and forget alias modules already imported."""
    if _finder in sys.meta_path:
        sys.meta_path.remove(_finder)
    for name in list(sys.modules):
        if name.partition(".")[0] in ALIASES:
            del sys.modules[name]


def installed() -> bool:
    return _finder in sys.meta_path
