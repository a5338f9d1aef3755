"""The on-disk cache of kernels built on a user's behalf (Custom func_type="tbe").

Layout: ``$NPUSIM_CACHE_DIR/tbe/<key digest>/kernel_meta/<kernel name>.{o,json}`` (default root
``~/.cache/npusim``).  The key digest covers what the build depends on: the caller's key plus the compiler
fingerprint (:func:`compiler_fingerprint`), a sha256 over every source file of the packages that take part in a
build — the TBE compiler (``te_compat``) and ``npusim`` (the simulator whose ISA semantics, rounding and
saturation constant folding bakes into kernels, the chip YAMLs, the Custom tbe backend ...) — and the versions of
Python, numpy and TVM.  Editing any of them invalidates old entries.

An entry is built in a private staging directory and published with one ``rename``, so concurrent processes
never see a half-written entry, and publishing never deletes an intact entry: when several processes build the
same kernel at once, the first to publish wins and the others keep its entry (theirs is equivalent).  Only a
damaged entry (a file missing, a kernel_meta JSON :func:`~te_compat.build.load_built` rejects) is replaced: moved
aside with one ``rename``, then removed, with one :class:`~npusim.errors.CacheWarning` naming it.  An unusable
cache directory falls back to a private temporary one (:func:`npusim.util.cachedir.usable_cache_dir`).
"""
from __future__ import annotations

import contextlib
import errno
import hashlib
import importlib.metadata
import importlib.util
import os
import shutil
import sys
import uuid
import warnings
from pathlib import Path
from typing import Iterable

import numpy as np

from npusim.errors import CacheDirError, CacheWarning, TbeLaunchError
from npusim.util.cachedir import ENV_VAR, usable_cache_dir  # noqa: F401  (ENV_VAR: kept as this module's name)
from te_compat.build.launch import load_built

SUBDIR = "tbe"
META_SUBDIR = "kernel_meta"
#: the packages whose source decides what a build produces (found by name, never by a path)
FINGERPRINT_PACKAGES = ("te_compat", "npusim")
#: the files of those packages that are source: Python and Cython modules, chip and other YAML data
SOURCE_SUFFIXES = frozenset({".py", ".pyx", ".yaml", ".yml"})
#: the runtime resource holding the fingerprint (computed once per runtime store: reading the sources takes ~30 ms)
FINGERPRINT_RESOURCE = "tbe.compiler_fingerprint"


def cache_root() -> Path:
    """``$NPUSIM_CACHE_DIR/tbe``, default ``~/.cache/npusim/tbe`` (created); a private temporary cache when that
    cannot be used (see :func:`npusim.util.cachedir.usable_cache_dir`)."""
    return usable_cache_dir(SUBDIR)


def package_roots(packages: Iterable[str] = FINGERPRINT_PACKAGES) -> tuple[Path, ...]:
    """The directories of ``packages`` (located without importing them)."""
    roots = []
    for name in packages:
        spec = importlib.util.find_spec(name)
        if spec is None or not spec.submodule_search_locations:
            raise ImportError(f"the kernel cache fingerprints package '{name}', which is not importable here")
        roots += [Path(location).resolve() for location in spec.submodule_search_locations]
    return tuple(roots)


def source_files(roots: Iterable) -> list[tuple[str, Path]]:
    """(name, path) of every source file under ``roots`` (directories, or single files), sorted by name; a name is
    the path relative to its root's parent (``npusim/sim/isa/rounding.py``), so a copied tree has the same names."""
    found = []
    for root in map(Path, roots):
        base = root.parent
        paths = root.rglob("*") if root.is_dir() else [root]
        for path in paths:
            if path.suffix in SOURCE_SUFFIXES and "__pycache__" not in path.parts and path.is_file():
                found.append((path.relative_to(base).as_posix(), path))
    return sorted(found)


def source_fingerprint(roots: Iterable) -> str:
    """sha256 over the names and contents of :func:`source_files` of ``roots`` (the same tree anywhere on disk
    gives the same value; any edit, addition, removal or rename gives another)."""
    digest = hashlib.sha256()
    for name, path in source_files(roots):
        data = path.read_bytes()
        digest.update(f"{name}\0{len(data)}\0".encode("utf-8") + data)
    return digest.hexdigest()


def toolchain_text() -> str:
    """The versions a build also depends on: Python's, numpy's (constant folding) and TVM's (the TE graphs)."""
    try:
        tvm_version = importlib.metadata.version("apache-tvm")
    except importlib.metadata.PackageNotFoundError:
        tvm_version = "absent"
    return f"python {sys.version_info[0]}.{sys.version_info[1]}; numpy {np.__version__}; tvm {tvm_version}"


def build_fingerprint(roots: Iterable | None = None) -> str:
    """The compiler fingerprint of the sources under ``roots`` (None: :func:`package_roots`) and the toolchain."""
    sources = source_fingerprint(package_roots() if roots is None else roots)
    return hashlib.sha256(f"{sources}\n{toolchain_text()}".encode("utf-8")).hexdigest()


def compiler_fingerprint(runtime) -> str:
    """The installed sources' :func:`build_fingerprint`, computed once per runtime store and held by ``runtime``
    as the resource :data:`FINGERPRINT_RESOURCE`."""
    return runtime.resource(FINGERPRINT_RESOURCE, build_fingerprint)


def key_digest(key_text: str, fingerprint: str) -> str:
    """The cache directory name of a key: the key's text with the compiler ``fingerprint``
    (:func:`compiler_fingerprint`)."""
    return hashlib.sha256((fingerprint + "\n" + key_text).encode("utf-8")).hexdigest()[:40]


def entry_meta_dir(digest: str) -> Path:
    """The kernel_meta directory of a published entry."""
    return cache_root() / digest / META_SUBDIR


@contextlib.contextmanager
def staging(digest: str):
    """Yield a fresh kernel_meta directory to build into; on normal exit publish it as the entry ``digest``
    (:func:`publish`); on error remove it.  The published kernel_meta path is ``entry_meta_dir(digest)``."""
    root = cache_root()
    try:
        stage = root / f".{digest}.{os.getpid()}.{uuid.uuid4().hex}.staging"      # unique; the umask's mode
        (stage / META_SUBDIR).mkdir(parents=True)
    except OSError as exc:
        raise CacheDirError(f"cannot create a staging directory for TBE kernel cache entry {digest} in "
                            f"'{root}': {exc}") from exc
    try:
        yield stage / META_SUBDIR
    except BaseException:
        shutil.rmtree(stage, ignore_errors=True)
        raise
    publish(stage, root / digest)


#: how many times :func:`publish` retries when other processes move the entry meanwhile
PUBLISH_ATTEMPTS = 8


def publish(stage: Path, final: Path) -> bool:
    """Make the built entry ``stage`` the entry ``final`` unless an intact one is there (another process published
    the same kernel meanwhile: it is kept and ``stage`` removed).  A damaged entry is moved aside and removed, with
    one CacheWarning.  Never deletes an intact entry; True when ``stage`` became the entry."""
    expected = {p.name for p in (stage / META_SUBDIR).iterdir()}
    try:
        for _ in range(PUBLISH_ATTEMPTS):
            if _rename_into_place(stage, final):
                return True
            problem = entry_problem(final, expected)
            if problem is None:
                return False
            if final.exists() or final.is_symlink():
                _move_aside(final, problem)
        return False
    finally:
        shutil.rmtree(stage, ignore_errors=True)


def _rename_into_place(stage: Path, final: Path) -> bool:
    """``rename(stage, final)``: True if done, False if ``final`` is taken (a non-empty directory or a file)."""
    try:
        os.rename(stage, final)
        return True
    except OSError as exc:
        if exc.errno in (errno.ENOTEMPTY, errno.EEXIST, errno.ENOTDIR, errno.EISDIR):
            return False
        raise CacheDirError(f"cannot publish the TBE kernel cache entry '{final}': {exc}") from exc


def entry_problem(entry: Path, expected_names=()) -> str | None:
    """Why the published entry ``entry`` cannot be used (missing, not a directory, lacks one of
    ``expected_names`` in its kernel_meta, a JSON that :func:`~te_compat.build.load_built` rejects), or None."""
    meta_dir = entry / META_SUBDIR
    if not entry.is_dir() or not meta_dir.is_dir():
        return "missing" if not (entry.exists() or entry.is_symlink()) else "not a directory of kernel_meta files"
    try:
        names = {p.name for p in meta_dir.iterdir()}
    except OSError as exc:
        return f"unreadable: {exc}"
    lacking = sorted(set(expected_names) - names)
    if lacking:
        return f"lacks {', '.join(lacking)}"
    jsons = sorted(n for n in names if n.endswith(".json"))
    if not jsons:
        return "holds no kernel JSON"
    for name in jsons:
        try:
            load_built(meta_dir / name)
        except TbeLaunchError as exc:
            return str(exc)
    return None


def _move_aside(final: Path, problem: str) -> None:
    """Rename the damaged entry ``final`` to a unique hidden name, then remove it (another process may have moved
    it already: nothing to do then)."""
    aside = final.with_name(f".{final.name}.{uuid.uuid4().hex}.damaged")
    try:
        os.rename(final, aside)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise CacheDirError(f"cannot replace the damaged TBE kernel cache entry '{final}': {exc}") from exc
    warnings.warn(CacheWarning(f"npusim: the TBE kernel cache entry '{final}' was damaged ({problem}); it was "
                               f"rebuilt and replaced"))
    if aside.is_dir() and not aside.is_symlink():
        shutil.rmtree(aside, ignore_errors=True)
    else:
        aside.unlink(missing_ok=True)
