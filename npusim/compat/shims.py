"""Shims for old CANN-era Python: standard-library names that 2019-2022 op files use and Python 3.11 no longer has.

They are installed once, when the compatibility layer is switched on (``npusim run``, ``import npusim.compat``,
the pytest plugin with ``--npusim-compat``), never by importing a TBE module.  Each shim only adds a name that is
missing; a name the running Python still has is left alone.

==========================  ==================  ==============================================================
name                        removed in Python   what it is here
==========================  ==================  ==============================================================
``collections.<ABC>``       3.10                the ``collections.abc`` class itself (``Iterable``, ``Mapping``
                                                ``Sequence`` ... — see :data:`COLLECTIONS_ABC_NAMES`)
``inspect.getargspec``      3.11                ``ArgSpec(args, varargs, keywords, defaults)`` from
                                                ``inspect.getfullargspec``; like the original it raises
                                                ValueError for keyword-only parameters or annotations
``inspect.ArgSpec``         3.11                the named tuple ``getargspec`` returns
``fractions.gcd``           3.9                 the old Euclid ``gcd`` (the result takes the sign of ``b``)
==========================  ==================  ==============================================================

:func:`uninstall` removes exactly the names :func:`install` added (the compatibility layer's ``uninstall`` leaves
the shims in place: modules imported while the layer was on may still hold them).
"""
from __future__ import annotations

import collections
import collections.abc
import fractions
import inspect
from typing import NamedTuple

#: names 2020 op files import from ``collections`` that Python 3.10 moved to ``collections.abc`` only
COLLECTIONS_ABC_NAMES = (
    "Awaitable", "Coroutine", "AsyncIterable", "AsyncIterator", "AsyncGenerator", "Hashable", "Iterable",
    "Iterator", "Generator", "Reversible", "Sized", "Container", "Callable", "Collection", "Set", "MutableSet",
    "Mapping", "MutableMapping", "MappingView", "KeysView", "ItemsView", "ValuesView", "Sequence",
    "MutableSequence", "ByteString",
)


class ArgSpec(NamedTuple):
    """What Python < 3.11's ``inspect.getargspec`` returned."""

    args: list
    varargs: str | None
    keywords: str | None
    defaults: tuple | None


def getargspec(func) -> ArgSpec:
    """Python < 3.11's ``inspect.getargspec``: names and defaults of ``func``'s positional parameters."""
    spec = inspect.getfullargspec(func)
    if spec.kwonlyargs or spec.annotations:
        raise ValueError("Function has keyword-only parameters or annotations, use inspect.signature() API which "
                         "can support them")
    return ArgSpec(spec.args, spec.varargs, spec.varkw, spec.defaults)


def gcd(a, b):
    """Python < 3.9's ``fractions.gcd``: Euclid's algorithm; the result has the sign of ``b`` (of ``a`` if b == 0)."""
    while b:
        a, b = b, a % b
    return a


def _planned() -> list:
    """(module, name, value) of every shim this Python lacks."""
    wanted = [(collections, name, getattr(collections.abc, name))
              for name in COLLECTIONS_ABC_NAMES if hasattr(collections.abc, name)]
    wanted += [(inspect, "getargspec", getargspec), (inspect, "ArgSpec", ArgSpec), (fractions, "gcd", gcd)]
    return [(module, name, value) for module, name, value in wanted if not hasattr(module, name)]


#: (module, name, value) this module added, so that :func:`uninstall` removes only those
_added: list = []


def install() -> tuple:
    """Add every missing shim (idempotent); returns the dotted names added by this call."""
    added = _planned()
    for module, name, value in added:
        setattr(module, name, value)
    _added.extend(added)
    return tuple(f"{module.__name__}.{name}" for module, name, _ in added)


def uninstall() -> None:
    """Remove the names :func:`install` added (a name someone has since rebound is left alone)."""
    while _added:
        module, name, value = _added.pop()
        if getattr(module, name, None) is value:
            delattr(module, name)


def installed() -> tuple:
    """Dotted names of the shims currently installed by this module."""
    return tuple(f"{module.__name__}.{name}" for module, name, _ in _added)


__all__ = ["ArgSpec", "COLLECTIONS_ABC_NAMES", "gcd", "getargspec", "install", "installed", "uninstall"]
