"""Telling an unbuilt source checkout of npusim from an installed copy, and saying what to do about it.

``python -m npusim`` (like ``python -m`` of anything) puts the current directory first on ``sys.path``.  Run from
the root of a source checkout, it imports that checkout's ``npusim`` — even when a built copy is installed (``pip
install .``) — and a checkout has its compiled parts only after a build: the aot call bridge
(``npusim/aot/_bridge*.so``) and the AICPU artifacts (``aicpu_loader/lib``).  :func:`inspect_checkout` finds that
case from the files alone (nothing is imported), and :func:`unbuilt_advice` says what to do: run from another
directory, or build the checkout with ``pip install -e .``.

    state = inspect_checkout()            # the npusim in use, as seen from sys.path
    state.shadows_installed_copy          # an unbuilt checkout is used instead of an installed npusim
    unbuilt_advice(state)                 # one sentence for an error message
"""
from __future__ import annotations

import importlib.machinery
import importlib.metadata
import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Optional
from urllib.parse import unquote, urlparse

#: files whose presence beside a package directory marks a source checkout
CHECKOUT_MARKERS = ("pyproject.toml", "setup.py")
#: the AICPU artifacts a build puts in the checkout (``aicpu_loader/lib``), relative to the checkout root
AICPU_ARTIFACTS = ("aicpu_loader/lib/libnpusim_aicpu_runtime.a", "aicpu_loader/lib/npusim_aicpu_worker")
BRIDGE = "npusim/aot/_bridge*.so"


@dataclass(frozen=True)
class CheckoutState:
    """Where the npusim in use comes from: ``package_dir`` (its ``npusim`` directory), ``checkout_root`` (the
    source checkout holding it, None for an installed copy), ``missing`` (compiled parts a build would have made,
    relative to the checkout root) and ``installed_copy`` (another npusim package reachable from ``sys.path`` or
    an installed distribution, None if there is none)."""

    package_dir: Path
    checkout_root: Optional[Path]
    missing: tuple
    installed_copy: Optional[Path]

    @property
    def unbuilt(self) -> bool:
        """A source checkout without its compiled aot bridge (the AICPU artifacts alone can be missing from a
        checkout built with ``setup.py build_ext --inplace``: npusim builds them into its cache on first use)."""
        return self.checkout_root is not None and BRIDGE in self.missing

    @property
    def shadows_installed_copy(self) -> bool:
        """An unbuilt source checkout is in use while an installed npusim exists elsewhere."""
        return self.unbuilt and self.installed_copy is not None


def _real(path) -> str:
    return os.path.realpath(os.path.abspath(path or os.curdir))


def checkout_root_of(package_dir: Path) -> Optional[Path]:
    """The source checkout holding ``package_dir`` (its parent has pyproject.toml or setup.py and the package has
    the aot bridge's Cython source), else None."""
    root = package_dir.parent
    marked = any((root / marker).is_file() for marker in CHECKOUT_MARKERS)
    return root if marked and (package_dir / "aot" / "_bridge.pyx").is_file() else None


def missing_artifacts(root: Path) -> tuple:
    """The compiled parts absent from the checkout ``root`` (paths relative to it)."""
    missing = []
    bridge_dir = root / "npusim" / "aot"
    suffixes = tuple(importlib.machinery.EXTENSION_SUFFIXES)
    if not any(p.name.startswith("_bridge.") and p.name.endswith(suffixes) for p in bridge_dir.glob("_bridge.*")):
        missing.append(BRIDGE)
    missing += [name for name in AICPU_ARTIFACTS if not (root / name).is_file()]
    return tuple(missing)


def _distribution_package(dist) -> Optional[Path]:
    """The npusim package directory of an installed distribution (an editable one: in the directory it points
    to)."""
    try:
        direct = json.loads(dist.read_text("direct_url.json") or "{}")
    except ValueError:
        direct = {}
    if direct.get("dir_info", {}).get("editable") and str(direct.get("url", "")).startswith("file:"):
        return Path(unquote(urlparse(direct["url"]).path)) / "npusim"
    return Path(dist.locate_file("npusim"))


def find_installed_copy(package_dir: Path, search_path: Iterable[str]) -> Optional[Path]:
    """Another npusim package than ``package_dir``: on ``search_path`` (the checkout's own directory left out), or
    named by an installed npusim distribution there; None if there is none."""
    own, root = _real(package_dir), _real(package_dir.parent)
    others = [p for p in search_path if _real(p) != root]
    spec = importlib.machinery.PathFinder.find_spec("npusim", others)
    candidates = [Path(loc) for loc in (spec.submodule_search_locations or [])] if spec is not None else []
    for dist in importlib.metadata.distributions(name="npusim", path=others):
        candidates.append(_distribution_package(dist))
    for candidate in candidates:
        if _real(candidate) != own and (candidate / "__init__.py").is_file():
            return candidate
    return None


def inspect_checkout(package_dir=None, search_path: Optional[Iterable[str]] = None) -> CheckoutState:
    """The :class:`CheckoutState` of the npusim package at ``package_dir`` (default: the one in use), looking for
    an installed copy on ``search_path`` (default: ``sys.path``)."""
    package_dir = Path(package_dir if package_dir is not None else Path(__file__).resolve().parents[1])
    root = checkout_root_of(package_dir)
    missing = missing_artifacts(root) if root is not None else ()
    installed = None
    if BRIDGE in missing:
        installed = find_installed_copy(package_dir, sys.path if search_path is None else list(search_path))
    return CheckoutState(package_dir, root, missing, installed)


def unbuilt_advice(state: Optional[CheckoutState] = None) -> str:
    """What to do about compiled parts npusim lacks, for an error message (``state``: default the npusim in use)."""
    state = inspect_checkout() if state is None else state
    root = state.checkout_root
    if root is None:
        return f"reinstall npusim with pip (the installed copy at '{state.package_dir}' lacks compiled parts)"
    if not state.unbuilt:
        return f"rebuild the source checkout '{root}' with `pip install -e {root}`"
    what = f"npusim is imported from the source checkout '{root}', which is not built (no {', '.join(state.missing)})"
    if state.shadows_installed_copy:
        return (f"{what}, instead of the installed npusim at '{state.installed_copy}' (`python -m ...` run in "
                f"'{root}', or a script placed there, puts that directory first on sys.path): run from another "
                f"directory, or build the checkout with `pip install -e {root}`")
    return f"{what}: build it with `pip install -e {root}` (or `python setup.py build_ext --inplace` there)"


__all__ = ["CheckoutState", "checkout_root_of", "find_installed_copy", "inspect_checkout", "missing_artifacts",
           "unbuilt_advice"]
