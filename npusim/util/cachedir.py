"""Where npusim keeps what it builds on disk, and what happens when that place cannot be used.

    cache_base()               # $NPUSIM_CACHE_DIR, else ~/.cache/npusim
    usable_cache_dir("tbe")    # <base>/tbe, created and writable; else the private temporary cache's tbe/

A cache directory that cannot be used — ``NPUSIM_CACHE_DIR`` under a regular file, a read-only directory, a file
where the directory should be — does not make every build fail: the cache moves to a private directory under the
system's temporary directory (``<tmp>/npusim-cache-<uid>``: created with mode 0700, used only if it is a real
directory owned by the user and closed to others), with one :class:`~npusim.errors.CacheWarning` per process
naming the directory and the cause.  When the fallback is unusable too, :class:`~npusim.errors.CacheDirError`
names both directories.
"""
from __future__ import annotations

import os
import stat
import tempfile
import warnings
from pathlib import Path
from typing import Optional

from npusim.errors.cache import CacheDirError, CacheWarning

ENV_VAR = "NPUSIM_CACHE_DIR"
#: the fallback's name under the temporary directory (the user id is appended)
FALLBACK_PREFIX = "npusim-cache-"
#: permission bits the private fallback must not have (group and others: none)
_OPEN_TO_OTHERS = stat.S_IRWXG | stat.S_IRWXO
#: the fallback warnings this process has issued (one per problem and process: Python's own registries of shown
#: warnings are reset by every warnings.catch_warnings(), which numpy's helpers and test runners use)
_warned: set = set()


def cache_base() -> Path:
    """The configured cache root: ``$NPUSIM_CACHE_DIR`` (``~`` expanded), else ``~/.cache/npusim``."""
    root = os.environ.get(ENV_VAR)
    return Path(root).expanduser() if root else Path.home() / ".cache" / "npusim"


def fallback_base() -> Path:
    """The private temporary cache root: ``<tempfile.gettempdir()>/npusim-cache-<uid>``."""
    return Path(tempfile.gettempdir()) / f"{FALLBACK_PREFIX}{os.getuid()}"


def directory_problem(directory: Path) -> Optional[str]:
    """Why ``directory`` cannot hold cache files (it is created if missing), or None when it can."""
    if directory.exists() and not directory.is_dir():
        return "it is not a directory"
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        return f"cannot create it: {exc.strerror or exc}"
    if not directory.is_dir():
        return "it is not a directory"
    if not os.access(directory, os.W_OK | os.X_OK):
        return "it is not writable"
    return None


def _private_problem(directory: Path) -> Optional[str]:
    """Why ``directory`` is not a private cache root (created with mode 0700 if missing), or None."""
    try:
        directory.mkdir(mode=0o700, exist_ok=True)
        info = directory.lstat()
    except OSError as exc:
        return f"cannot create it: {exc.strerror or exc}"
    if not stat.S_ISDIR(info.st_mode):
        return "it is not a directory"
    if info.st_uid != os.getuid() or info.st_mode & _OPEN_TO_OTHERS:
        return "it belongs to another user or is open to other users"
    return None


def usable_cache_dir(name: str) -> Path:
    """``cache_base() / name``, created; when that cannot be used, ``fallback_base() / name`` with one
    CacheWarning.  CacheDirError (naming both directories) when neither can be used."""
    base = cache_base()
    problem = directory_problem(base)
    unusable = base
    if problem is None:
        wanted = base / name
        problem = directory_problem(wanted)
        if problem is None:
            return wanted
        unusable = wanted
    fallback = fallback_base()
    fallback_problem = _private_problem(fallback) or directory_problem(fallback / name)
    if fallback_problem is not None:
        raise CacheDirError(f"npusim cannot use the cache directory '{unusable}' ({problem}; set {ENV_VAR} to a "
                            f"writable directory), nor its private temporary cache '{fallback}' "
                            f"({fallback_problem})")
    message = (f"npusim cannot use the cache directory '{unusable}' ({problem}); using the private temporary "
               f"cache '{fallback}' instead (set {ENV_VAR} to a writable directory)")
    if message not in _warned:
        _warned.add(message)
        warnings.warn(CacheWarning(message), stacklevel=2)
    return fallback / name


__all__ = ["ENV_VAR", "cache_base", "directory_problem", "fallback_base", "usable_cache_dir"]
