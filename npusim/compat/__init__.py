"""The compatibility layer: makes ``mindspore``, ``te``, ``tbe``, ``topi`` and ``impl`` importable as npusim's
implementations wherever the user's own code provides none, without installing anything under those names, and
installs the old-Python shims CANN-era op files need (:mod:`npusim.compat.shims`).

Switch it on with ``import npusim.compat`` (or :func:`install`); ``npusim run`` and the pytest plugin
(``--npusim-compat`` / ini ``npusim_compat = true``) do it for you.  Which module wins for each name is described in
:mod:`npusim.compat.aliases`.  :func:`uninstall` switches the finder off again (the shims stay).
"""
from npusim.compat import shims  # noqa: F401
from npusim.compat.aliases import (  # noqa: F401
    ALIASES, bridge_mode, install, installed, served, set_bridge_mode, uninstall,
)

install()

__all__ = ["ALIASES", "bridge_mode", "install", "installed", "served", "set_bridge_mode", "shims", "uninstall"]
