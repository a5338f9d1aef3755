"""A meta-path finder that serves alias package names (``mindspore.ops``, ``te.lang.cce``) from npusim modules
(``npusim.ms.ops``, ``te_compat.te.lang.cce``) — only where the user's own code provides none.

Resolution rules, decided at each import (that is, whenever the name is not in ``sys.modules``, exactly when plain
Python would search ``sys.path``):

* **CANN names** (``te``, ``tbe``, ``topi``, ``impl`` — every alias but ``mindspore``): a module or package of that
  name found on the user's ``sys.path`` (by any other finder, regular or namespace package, installed or not) wins;
  npusim's is served only when there is none.  Dropping ``impl*`` from ``sys.modules`` and putting another op tree
  first on ``sys.path`` therefore finds that tree's ``impl``, as plain Python does.
* **mindspore**: npusim's is served while the layer is on, shadowing an installed MindSpore distribution (one in
  site-packages / dist-packages / the interpreter's purelib or platlib); a user's own ``mindspore`` module or package
  found on ``sys.path`` outside those directories wins.
* **Submodules**: when the parent is npusim's module, the child is always npusim's counterpart (``te.lang`` is
  ``te_compat.te.lang``; Python's PathFinder never loads a second copy from npusim's directories).  When the parent
  of a CANN name is the user's (e.g. the project's own ``impl`` package, regular or namespace), the user's files
  win and npusim fills in only the children the user's tree lacks and npusim has (``impl.util``,
  ``impl.util.platform_adapter``, ``impl.util.util_common`` ...).  Children of a user's own ``mindspore`` are
  plain Python's business.
* A module found in npusim's own directories under an alias name (someone put ``te_compat/`` itself on sys.path)
  does not count as the user's: npusim's module object is served instead.

The alias and the real name are the same module object (``sys.modules["te"] is te_compat.te``); the module keeps
its own ``__spec__`` (``te_compat.te``'s), as ``os.path`` does.  :func:`uninstall` removes the finder and forgets
only the modules it served under alias names (never a real installation's or a user's module, whatever its
``__name__``); the old-Python shims (:mod:`npusim.compat.shims`) stay installed.

**Bridge mode** (:func:`set_bridge_mode`, switched on by :mod:`npusim.bridge` / ``npusim run --mindspore real``): the
finder serves only the CANN names (``te``, ``tbe``, ``topi``, ``impl``) and never looks at ``mindspore``, so a real
MindSpore installation imports as plain Python imports it.  The mode sticks across :func:`install` calls.
"""
from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys

from npusim.compat import locate, shims

#: alias top-level package → the npusim package that provides it
ALIASES = {
    "mindspore": "npusim.ms",
    # the TBE import surface: te / tbe / topi and CANN's impl.util.platform_adapter
    "te": "te_compat.te",
    "tbe": "te_compat.tbe",
    "topi": "te_compat.topi",
    "impl": "te_compat.impl",
}
#: aliases whose npusim module shadows an installed distribution of the same name (a user's own module still wins)
SHADOWS_INSTALLED = frozenset({"mindspore"})
#: the aliases served in bridge mode (real MindSpore in use): CANN's import surface only
CANN_NAMES = frozenset(ALIASES) - {"mindspore"}


class _AliasLoader(importlib.abc.Loader):
    """Loads ``alias`` as the already-importable npusim module ``real`` (the same object)."""

    def __init__(self, alias: str, real: str):
        self.alias = alias
        self.real = real
        self.real_spec = None

    def create_module(self, spec):
        module = importlib.import_module(self.real)
        self.real_spec = getattr(module, "__spec__", None)
        return module

    def exec_module(self, module):
        # the module is already executed; the import system has just given it the alias spec: restore its own
        if self.real_spec is not None:
            module.__spec__ = self.real_spec
        _alias_loaded_submodules(self.alias, module.__name__)


def _alias_loaded_submodules(alias: str, real: str) -> None:
    """Enter the already-imported submodules of ``real`` under ``alias`` too.

    Importing ``alias.sub`` later then finds it in ``sys.modules`` and leaves the parent's attribute ``sub`` alone,
    as in the real package: ``mindspore.ops.op_info_register`` stays the decorator its ``__init__`` imported, even
    after ``from mindspore.ops.op_info_register import TBERegOp``.
    """
    prefix = real + "."
    for name, module in list(sys.modules.items()):
        if name.startswith(prefix):
            sys.modules.setdefault(alias + name[len(real):], module)


def _alias_spec(alias: str, real: str):
    """A spec loading ``alias`` as npusim's module ``real``; None when npusim has no such module."""
    try:
        real_spec = importlib.util.find_spec(real)
    except (ImportError, ValueError):
        return None
    if real_spec is None:
        return None
    loader = _AliasLoader(alias, real)
    spec = importlib.machinery.ModuleSpec(alias, loader, origin=real_spec.origin)
    if real_spec.submodule_search_locations is not None:  # a package: report where npusim's lives
        spec.submodule_search_locations = list(real_spec.submodule_search_locations)
    return spec


def _is_npusim_module(module, alias: str) -> bool:
    """True when ``module`` (in sys.modules as ``alias``) is one of npusim's modules served under that alias."""
    real = getattr(module, "__name__", alias)
    return real != alias and sys.modules.get(real) is module


class AliasFinder(importlib.abc.MetaPathFinder):
    """Resolves ``alias[.sub...]`` to the user's module or npusim's ``target[.sub...]`` (see the module docstring).
    ``serves``: the top-level aliases it answers for (all of :data:`ALIASES`; :data:`CANN_NAMES` in bridge mode)."""

    def __init__(self):
        self.serves = frozenset(ALIASES)

    def find_spec(self, fullname, path=None, target=None):
        top, _, rest = fullname.partition(".")
        base = ALIASES.get(top) if top in self.serves else None
        if base is None:
            return None
        if not rest:
            return self._find_top(fullname, base)
        parent_name, _, child = fullname.rpartition(".")
        parent = sys.modules.get(parent_name)
        if parent is None:
            return None
        if _is_npusim_module(parent, parent_name):
            return _alias_spec(fullname, f"{parent.__name__}.{child}")
        if top in SHADOWS_INSTALLED:
            return None  # a user's own mindspore package: plain Python
        user = locate.find_elsewhere(fullname, getattr(parent, "__path__", None), self)
        return user if user is not None else _alias_spec(fullname, f"{base}.{rest}")

    def _find_top(self, name: str, base: str):
        user = locate.find_elsewhere(name, None, self)
        if user is not None and not (name in SHADOWS_INSTALLED and locate.is_installed_distribution(user)):
            return user
        return _alias_spec(name, base)


_finder = AliasFinder()


def install() -> None:
    """Switch the layer on: the old-Python shims, then the alias finder first on ``sys.meta_path`` (idempotent)."""
    shims.install()
    if _finder not in sys.meta_path:
        sys.meta_path.insert(0, _finder)


def uninstall() -> None:
    """Remove the finder and forget the modules it served under alias names (a user's or a real installation's
    modules stay in ``sys.modules``).  The shims stay installed (see :func:`npusim.compat.shims.uninstall`)."""
    if _finder in sys.meta_path:
        sys.meta_path.remove(_finder)
    for name in served():
        del sys.modules[name]


def set_bridge_mode(on: bool = True) -> None:
    """Bridge mode on (serve only te / tbe / topi / impl; ``mindspore`` is a real installation's) or off (serve every
    alias).  Refused (BridgeConflictError) while npusim's own ``mindspore`` is imported under that name: objects made
    with it would mix with real MindSpore's."""
    if on:
        ours = [name for name in served() if name.partition(".")[0] == "mindspore"]
        if ours:
            from npusim.errors import BridgeConflictError
            raise BridgeConflictError(
                "npusim's own mindspore front end is already imported in this process (sys.modules['mindspore'] is "
                "npusim.ms): switch to real MindSpore before importing mindspore (`import npusim.bridge` first, or "
                "`npusim run --mindspore real SCRIPT`)")
    _finder.serves = CANN_NAMES if on else frozenset(ALIASES)


def bridge_mode() -> bool:
    """True while the finder leaves ``mindspore`` to a real installation (see :func:`set_bridge_mode`)."""
    return "mindspore" not in _finder.serves


def installed() -> bool:
    """True while the alias finder is on ``sys.meta_path``."""
    return _finder in sys.meta_path


def served() -> dict:
    """Alias name → npusim module: the entries of ``sys.modules`` that are one of npusim's modules under an alias
    name (a user's module or a real installation's is there under its own name, and is never listed)."""
    return {name: module for name, module in list(sys.modules.items())
            if name.partition(".")[0] in ALIASES and _is_npusim_module(module, name)
            and module.__name__.partition(".")[0] in locate.OWN_PACKAGES and _in_own_directories(module)}


def _in_own_directories(module) -> bool:
    """True when ``module``'s file (or package directory) is inside npusim's own package directories: a real
    installation's module never is, whatever ``__name__`` it carries."""
    spec = getattr(module, "__spec__", None)
    if spec is not None and (spec.origin or spec.submodule_search_locations):
        return locate.is_npusim_own(spec)
    path = getattr(module, "__file__", None)
    return path is None or any(os.path.realpath(path).startswith(root + os.sep) for root in locate.OWN_ROOTS)


__all__ = ["ALIASES", "AliasFinder", "CANN_NAMES", "SHADOWS_INSTALLED", "bridge_mode", "install", "installed",
           "served", "set_bridge_mode", "uninstall"]
