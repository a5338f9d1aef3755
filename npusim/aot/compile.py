"""Compiling aot kernel sources (``.cc``/``.cpp``) into shared libraries, with an on-disk cache.

The command is MindSpore's, ``g++ -std=c++17 --shared -fPIC``, plus ``-O3`` so that simple loops vectorise as
numpy's do, with npusim's ``custom_aot_extra.h`` and the source's own directory on the include path.

Cache: ``$NPUSIM_CACHE_DIR/aot`` (default ``~/.cache/npusim/aot``).  A library's name carries the sha256 of
everything that decides its contents: the source, the headers beside it, npusim's header, the flags and the
compiler's version.  Libraries are written to a temporary name and renamed into place, so processes compiling
the same kernel at once never see a half-written file.
"""
from __future__ import annotations

import hashlib
import os
import subprocess
import tempfile
from pathlib import Path

from npusim.aot import INCLUDE_DIR
from npusim.errors import AotFileNotFoundError, KernelBuildError, UnsupportedError

COMPILER = "g++"
BASE_FLAGS = ("-std=c++17", "--shared", "-fPIC", "-O3")
SOURCE_SUFFIXES = (".cc", ".cpp", ".cxx", ".c++")
#: Files beside a source that may be #included by it and so take part in the cache key.
HEADER_SUFFIXES = (".h", ".hh", ".hpp", ".hxx", ".inc", ".inl")
COMPILE_TIMEOUT_SECONDS = 300


def cache_dir() -> Path:
    """Where compiled kernels are kept: ``$NPUSIM_CACHE_DIR/aot``, default ``~/.cache/npusim/aot`` (created); when
    that cannot be used, a private temporary cache with one CacheWarning (CacheDirError if that fails too; see
    :func:`npusim.util.cachedir.usable_cache_dir`)."""
    from npusim.util.cachedir import usable_cache_dir
    return usable_cache_dir("aot")


def compile_source(source_path, extra_flags=(), versions=None) -> Path:
    """The shared library built from ``source_path`` (compiled now unless the cache holds it).  ``versions``: a
    cache (a runtime's BoundedCache) of the compiler's ``--version`` text, so a process probes it once; None
    probes every time.

    Raises AotFileNotFoundError if the source is missing, KernelBuildError with the compiler's output if it
    does not compile.
    """
    source = Path(source_path).resolve()
    if not source.is_file():
        raise AotFileNotFoundError(f"aot kernel source '{source}' does not exist")
    flags = BASE_FLAGS + (f"-I{INCLUDE_DIR}", f"-I{source.parent}") + tuple(extra_flags)
    digest = _cache_key(source, flags, versions)
    target_dir = cache_dir()
    library = target_dir / f"{source.stem}-{digest[:32]}.so"
    if library.is_file():
        return library
    target_dir.mkdir(parents=True, exist_ok=True)
    _build(source, flags, library)
    return library


def _cache_key(source: Path, flags: tuple, versions) -> str:
    digest = hashlib.sha256()
    version = _compiler_version() if versions is None else versions.get_or_create(COMPILER, _compiler_version)
    for part in (COMPILER, version, "\0".join(flags)):
        digest.update(part.encode())
        digest.update(b"\0")
    digest.update(source.read_bytes())
    for header in sorted(source.parent.iterdir()):
        if header.suffix in HEADER_SUFFIXES and header.is_file():
            digest.update(header.name.encode() + b"\0" + header.read_bytes())
    digest.update((INCLUDE_DIR / "custom_aot_extra.h").read_bytes())
    return digest.hexdigest()


def _compiler_version() -> str:
    try:
        probe = subprocess.run([COMPILER, "--version"], capture_output=True, text=True, check=True)
    except (OSError, subprocess.CalledProcessError) as error:
        raise UnsupportedError(f"aot kernels from C++ sources need '{COMPILER}', which cannot be run: "
                               f"{error}") from error
    return probe.stdout.strip()


def _build(source: Path, flags: tuple, library: Path) -> None:
    """Compile into a temporary file beside ``library``, then rename it into place."""
    handle, temp_name = tempfile.mkstemp(prefix=f".{library.stem}-", suffix=".so.tmp", dir=library.parent)
    os.close(handle)
    command = [COMPILER, *flags, "-o", temp_name, str(source)]
    try:
        result = subprocess.run(command, capture_output=True, text=True, timeout=COMPILE_TIMEOUT_SECONDS)
        if result.returncode != 0:
            raise KernelBuildError(f"compiling aot kernel '{source}' failed (exit {result.returncode}):\n"
                                   f"$ {' '.join(command)}\n{result.stdout}{result.stderr}")
        os.chmod(temp_name, 0o755)
        os.replace(temp_name, library)
    except subprocess.TimeoutExpired as error:
        raise KernelBuildError(f"compiling aot kernel '{source}' took over {COMPILE_TIMEOUT_SECONDS} s: "
                               f"$ {' '.join(command)}") from error
    finally:
        if os.path.exists(temp_name):
            os.unlink(temp_name)
