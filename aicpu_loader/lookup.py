"""Finding the kernel library a ``cust_aicpu`` value names: X → ``libX.so``.

Search order (first hit wins; the working directory is never searched implicitly):
1. the directories of ``$NPUSIM_AICPU_LIB_PATH`` (``os.pathsep``-separated; empty entries are skipped),
2. npusim's own lib directory (``aicpu_loader/lib``; the default library may instead come from the build cache
   of a source checkout, see build.py),
3. MindSpore-style ``lib/`` and ``lib/ascend/`` inside the ``mindspore`` package directory — npusim's
   compatibility package (``npusim/ms``) or a real MindSpore when one is installed.

The built-in names "aicpu_kernels" and "cpu_kernels" (and a missing ``cust_aicpu``) name MindSpore's built-in
libraries: a ``libaicpu_kernels.so`` / ``libcpu_kernels.so`` found on the path is used, otherwise npusim's
default library stands in for them.
"""
from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

from aicpu_loader import build
from npusim.errors import AicpuLibraryNotFoundError

ENV_VAR = "NPUSIM_AICPU_LIB_PATH"
DEFAULT_NAME = "mindspore_aicpu_kernels"
BUILTIN_NAMES = ("aicpu_kernels", "cpu_kernels")


def library_file_name(name: str) -> str:
    """``libNAME.so``."""
    return f"lib{name}.so"


_ENV_KEY = os.fsencode(ENV_VAR)
#: CPython's os.environ keeps its encoded items in ``_data`` (os.environ[...] = and monkeypatch update it); reading
#: it directly costs ~0.1 µs against ~2 µs for os.environ.get, which matters on the per-call path
_ENV_DATA = getattr(os.environ, "_data", None)


def env_setting():
    """``$NPUSIM_AICPU_LIB_PATH`` as an opaque token (None when unset): equal tokens mean the same search path.

    Cheap enough to check on every call (call plans key on it)."""
    if _ENV_DATA is not None:
        return _ENV_DATA.get(_ENV_KEY)
    return os.environ.get(ENV_VAR)


def env_dirs() -> list[Path]:
    """Directories of ``$NPUSIM_AICPU_LIB_PATH`` in order (relative entries resolved; empty ones skipped)."""
    value = os.environ.get(ENV_VAR, "")
    return [Path(entry).resolve() for entry in value.split(os.pathsep) if entry.strip()]


def _package_dirs(name: str) -> list[Path]:
    module = sys.modules.get(name)
    if module is not None and getattr(module, "__path__", None):  # imported: its own __path__ is authoritative
        return [Path(p) for p in module.__path__]  # (an alias import may have replaced its __spec__)
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return []
    locations = getattr(spec, "submodule_search_locations", None) if spec else None
    return [Path(p) for p in locations or ()]


def compat_lib_dirs() -> list[Path]:
    """``lib/`` and ``lib/ascend/`` of the mindspore package directory (npusim's compat package, or real MindSpore).

    Decided without importing the compatibility layer: whatever ``mindspore`` resolves to, a package whose directory
    is ``npusim.ms``'s own is npusim's compatibility package (the alias), not a real installation."""
    own_dirs = _package_dirs("npusim.ms")
    resolved = set(map(_real_dir, own_dirs))
    package_dirs = own_dirs + [d for d in _package_dirs("mindspore") if _real_dir(d) not in resolved]
    dirs: list[Path] = []
    for package_dir in dict.fromkeys(package_dirs):
        dirs += [package_dir / "lib", package_dir / "lib" / "ascend"]
    return dirs


def _real_dir(path: Path) -> str:
    return os.path.realpath(path)


def search_dirs() -> list[Path]:
    """Every directory searched for ``libX.so``, in order (npusim's own lib directory as installed)."""
    return env_dirs() + [build.INSTALLED_LIB_DIR] + compat_lib_dirs()


def _check_name(name: str) -> None:
    if not name or "/" in name or os.sep in name or name.startswith("."):
        raise AicpuLibraryNotFoundError(
            f"cust_aicpu={name!r} must be a library name X (for libX.so), not a path; put the library's directory "
            f"in {ENV_VAR} instead", library_name=name, searched=())


def find_library(name: str | None) -> Path:
    """The absolute path of the library ``cust_aicpu=name`` selects (None: MindSpore's built-in library).

    Raises AicpuLibraryNotFoundError listing every directory searched, in order.
    """
    builtin = name is None or name in BUILTIN_NAMES
    wanted = BUILTIN_NAMES[0] if name is None else name
    _check_name(wanted)
    searched: list[Path] = []
    for directory in env_dirs():
        searched.append(directory)
        hit = _file_in(directory, wanted)
        if hit:
            return hit
    searched.append(build.INSTALLED_LIB_DIR)
    if wanted == DEFAULT_NAME:  # npusim's own: the installed copy if current, else the cache's
        return _default_library(searched)
    hit = _file_in(build.INSTALLED_LIB_DIR, wanted)
    if hit:
        return hit
    for directory in compat_lib_dirs():
        searched.append(directory)
        hit = _file_in(directory, wanted)
        if hit:
            return hit
    if builtin:
        return _default_library(searched)
    file_name = library_file_name(wanted)
    unique = list(dict.fromkeys(searched))
    listing = "\n".join(f"  {i}. {d}" for i, d in enumerate(unique, 1))
    raise AicpuLibraryNotFoundError(
        f"AICPU kernel library {file_name} (cust_aicpu={name!r}) not found; searched, in order:\n{listing}\n"
        f"Build it with `npusim aicpu build SRC... -o DIR/{file_name}` and add DIR to {ENV_VAR}.",
        library_name=wanted, searched=tuple(unique))


def _file_in(directory: Path, name: str) -> Path | None:
    path = directory / library_file_name(name)
    return path.resolve() if path.is_file() else None


def _default_library(searched: list[Path]) -> Path:
    """npusim's default library: installed and current, else built into the cache on first use."""
    default = build.default_library()
    if default.parent != build.INSTALLED_LIB_DIR:
        searched.append(default.parent)
    return default.resolve()
