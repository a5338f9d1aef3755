"""The compatibility layer: makes ``mindspore`` (and, as their issues land, ``te``, ``tbe``, ``topi``) importable
as npusim's implementations, without installing anything under those names.

Switch it on with ``import npusim.compat`` (or :func:`install`); ``npusim run`` and the pytest plugin do it for you.
"""
from npusim.compat.aliases import ALIASES, install, uninstall, installed  # noqa: F401

install()
