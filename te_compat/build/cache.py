"""The on-disk cache of kernels built on a user's behalf (Custom func_type="tbe").

Layout: ``$NPUSIM_CACHE_DIR/tbe/<key digest>/kernel_meta/<kernel name>.{o,json}`` (default root
``~/.cache/npusim``).  The key digest covers what the build depends on: the caller's key plus the compiler
fingerprint (:func:`compiler_fingerprint`), a sha256 over every source file of the packages that take part in a
build — the TBE compiler (``te_compat``) and ``npusim`` (the simulator whose ISA semantics, rounding and
saturation constant folding bakes into kernels, the chip YAMLs, the Custom tbe backend ...) — and the versions of
Python, numpy and TVM.  Editing any of them invalidates old entries.  An entry is built in a private staging
directory and published with one ``rename``, so concurrent processes never see a half-written entry.
"""
from __future__ import annotations

import contextlib
import hashlib
import importlib.metadata
import importlib.util
import os
import shutil
import sys
from pathlib import Path
from typing import Iterable

import numpy as np

ENV_VAR = "NPUSIM_CACHE_DIR"
SUBDIR = "tbe"
META_SUBDIR = "kernel_meta"
#: the packages whose source decides what a build produces (found by name, never by a path)
FINGERPRINT_PACKAGES = ("te_compat", "npusim")
#: the files of those packages that are source: Python and Cython modules, chip and other YAML data
SOURCE_SUFFIXES = frozenset({".py", ".pyx", ".yaml", ".yml"})
#: the runtime resource holding the fingerprint (computed once per runtime store: reading the sources takes ~30 ms)
FINGERPRINT_RESOURCE = "tbe.compiler_fingerprint"


def cache_root() -> Path:
    """``$NPUSIM_CACHE_DIR/tbe``, default ``~/.cache/npusim/tbe``."""
    root = os.environ.get(ENV_VAR)
    base = Path(root).expanduser() if root else Path.home() / ".cache" / "npusim"
    return base / SUBDIR


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
    (replacing a stale one); on error remove it.  The published kernel_meta path is ``entry_meta_dir(digest)``."""
    root = cache_root()
    root.mkdir(parents=True, exist_ok=True)
    stage = root / f".{digest}.{os.getpid()}.{id(object())}.staging"
    shutil.rmtree(stage, ignore_errors=True)
    (stage / META_SUBDIR).mkdir(parents=True)
    try:
        yield stage / META_SUBDIR
    except BaseException:
        shutil.rmtree(stage, ignore_errors=True)
        raise
    final = root / digest
    shutil.rmtree(final, ignore_errors=True)  # a stale or corrupt entry being rebuilt
    try:
        os.rename(stage, final)
    except OSError:  # another process published the same entry meanwhile: keep theirs
        shutil.rmtree(stage, ignore_errors=True)
