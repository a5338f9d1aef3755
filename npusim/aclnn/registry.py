"""The table of aclnn operators npusim provides: lookup by name (with or without the "aclnn" prefix)."""
from __future__ import annotations

import difflib

from npusim.aclnn.ops import OPS
from npusim.errors.aclnn import AclnnNotFoundError

PREFIX = "aclnn"
_SUFFIX = "GetWorkspaceSize"
_TABLE = {op.name: op for op in OPS}


def full_name(api: str) -> str:
    """``"Mul"`` -> ``"aclnnMul"``; ``"aclnnMulGetWorkspaceSize"`` -> ``"aclnnMul"``."""
    name = str(api).strip()
    if name.endswith(_SUFFIX) and len(name) > len(_SUFFIX):
        name = name[:-len(_SUFFIX)]
    return name if name.startswith(PREFIX) else PREFIX + name


def lookup(api: str):
    """The :class:`~npusim.aclnn.op.Op` called ``api``; AclnnNotFoundError naming it (and close names) if npusim
    does not provide it."""
    if not isinstance(api, str):
        raise AclnnNotFoundError(repr(api), f"an aclnn API name must be a string, got {type(api).__name__}")
    name = full_name(api)
    op = _TABLE.get(name)
    if op is None:
        close = difflib.get_close_matches(name, _TABLE, n=5, cutoff=0.6)
        folded = [n for n in _TABLE if n.lower() == name.lower()]
        close = folded + [n for n in close if n not in folded]
        hint = f"; close names: {', '.join(close)}" if close else ""
        raise AclnnNotFoundError(name, f"npusim provides no aclnn operator named '{name}'{hint} "
                                       f"(npusim.aclnn.provided() lists the {len(_TABLE)} it has)")
    return op


def provided() -> tuple:
    """Every aclnn API name npusim provides, sorted."""
    return tuple(sorted(_TABLE))


def operators() -> tuple:
    """Every :class:`~npusim.aclnn.op.Op`, sorted by name."""
    return tuple(_TABLE[name] for name in sorted(_TABLE))


__all__ = ["PREFIX", "full_name", "lookup", "operators", "provided"]
