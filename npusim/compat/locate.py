"""Where a module name would come from without npusim's alias layer: the user's own modules, as plain Python finds
them, told apart from npusim's own directories and from installed distributions (site-packages / dist-packages)."""
from __future__ import annotations

import os
import sys
import sysconfig
#: the packages whose directories hold npusim's own code (a module found there is never "the user's")
OWN_PACKAGES = ("npusim", "te_compat")


def _own_roots() -> tuple:
    """Real paths of npusim's own package directories."""
    import importlib.util
    roots = []
    for name in OWN_PACKAGES:
        spec = importlib.util.find_spec(name)
        for location in (spec.submodule_search_locations or ()) if spec else ():
            roots.append(os.path.realpath(location))
    return tuple(roots)


def _installed_roots() -> tuple:
    """Real paths of this interpreter's installed-package directories (purelib, platlib and the site dirs)."""
    import site
    paths = {sysconfig.get_paths().get(key) for key in ("purelib", "platlib")}
    paths.update(getattr(site, "getsitepackages", lambda: [])())
    user_site = getattr(site, "getusersitepackages", lambda: None)()
    paths.add(user_site if isinstance(user_site, str) else None)
    return tuple(os.path.realpath(p) for p in paths if p)


#: fixed for the life of the interpreter, so computed once at import
OWN_ROOTS = _own_roots()
INSTALLED_ROOTS = _installed_roots()


def spec_locations(spec) -> list:
    """The directories a spec's module lives in: its package locations, else the directory of its file."""
    locations = list(spec.submodule_search_locations or ())
    if not locations and spec.origin and os.path.isabs(spec.origin):
        locations = [os.path.dirname(spec.origin)]
    return [os.path.realpath(location) for location in locations]


def _under(path: str, roots: tuple) -> bool:
    return any(path == root or path.startswith(root + os.sep) for root in roots)


def is_npusim_own(spec) -> bool:
    """True when every location of ``spec`` is inside npusim's own package directories."""
    locations = spec_locations(spec)
    return bool(locations) and all(_under(location, OWN_ROOTS) for location in locations)


def is_installed_distribution(spec) -> bool:
    """True when ``spec`` lives in an installed-package directory (site-packages, dist-packages, purelib...)."""
    for location in spec_locations(spec):
        parts = location.split(os.sep)
        if "site-packages" in parts or "dist-packages" in parts or _under(location, INSTALLED_ROOTS):
            return True
    return False


def find_elsewhere(fullname: str, path, skip) -> object:
    """The spec the other finders on ``sys.meta_path`` (all but ``skip``) give ``fullname``, ignoring any that
    would load it from npusim's own directories; None when plain Python would find no such module."""
    for finder in list(sys.meta_path):
        find_spec = getattr(finder, "find_spec", None)
        if finder is skip or find_spec is None:
            continue
        spec = find_spec(fullname, path, None)
        if spec is not None and not is_npusim_own(spec):
            return spec
    return None


__all__ = ["INSTALLED_ROOTS", "OWN_PACKAGES", "OWN_ROOTS", "find_elsewhere", "is_installed_distribution",
           "is_npusim_own", "spec_locations"]
