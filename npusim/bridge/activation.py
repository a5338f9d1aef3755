"""Switching the bridge on: CANN aliases only, real MindSpore imported, its target setters and ``ops.Custom``
replaced (see :mod:`npusim.bridge`)."""
from __future__ import annotations

import sys

from npusim.errors import BridgeConflictError, MindSporeNotFoundError

#: the MindSpore release the bridge was built and tested against (others may work; pyproject's extra pins it)
TESTED_VERSION = "2.10.0"
#: where scripts import Custom from (``ops.Custom``, ``from mindspore.ops import Custom``, ``P.Custom``)
_CUSTOM_HOMES = ("mindspore.ops", "mindspore.ops.operations")
INSTALL_HINT = ("install MindSpore's CPU wheel in this environment: pip install 'npusim[mindspore]' (MindSpore "
                f"{TESTED_VERSION}), then run the script with `npusim run --mindspore real SCRIPT`")


def _real_mindspore():
    """Import the installed MindSpore (never npusim's front end: the alias layer is in bridge mode by now)."""
    loaded = sys.modules.get("mindspore")
    if loaded is not None and getattr(loaded, "__name__", "") != "mindspore":
        raise BridgeConflictError(f"sys.modules['mindspore'] is {loaded.__name__}, not a real MindSpore: import "
                                  f"npusim.bridge before anything imports mindspore")
    try:
        import mindspore
    except ImportError as exc:
        raise MindSporeNotFoundError(f"npusim's bridge needs a real MindSpore, but `import mindspore` failed ({exc}); "
                                     f"{INSTALL_HINT}") from exc
    return mindspore


def install():
    """Switch the bridge on (idempotent); returns the real ``mindspore`` package.  MindSporeNotFoundError without
    an installed MindSpore; BridgeConflictError when npusim's own front end was imported as ``mindspore``."""
    from npusim.compat import aliases
    aliases.set_bridge_mode(True)
    aliases.install()
    mindspore = _real_mindspore()
    from npusim.bridge import context
    from npusim.bridge.custom import Custom
    context.install()
    for home in _CUSTOM_HOMES:
        setattr(sys.modules[home], "Custom", Custom)
    return mindspore


def installed() -> bool:
    """True once :func:`install` has put the bridge's Custom in place."""
    ops = sys.modules.get("mindspore.ops")
    custom = getattr(ops, "Custom", None) if ops is not None else None
    return getattr(custom, "__module__", "") == "npusim.bridge.custom"


__all__ = ["INSTALL_HINT", "TESTED_VERSION", "install", "installed"]
