"""Compiled hybrid kernels on disk, so a new process loads them instead of compiling them again.

Entries live in ``$NPUSIM_CACHE_DIR/hybrid`` (default ``~/.cache/npusim/hybrid``; an unusable directory falls
back as :mod:`npusim.util.cachedir` describes).  An entry is the shared library TVM exports for one kernel, named
``<function>-<key>.so``; ``key`` is the sha256 of the kernel's identity (for hybrid functions: the source text,
input shapes and dtypes, attribute values and defaults; for kernels whose source is not the whole story, such as
akg ir_builder functions: the lowered TIR text) together with a fingerprint of npusim's hybrid sources, the TVM
version and the target, so any change to what decides the machine code gives a new key.

Integrity: the library is written with a footer (magic + sha256 of the library bytes) that the dynamic loader
ignores; an entry whose footer does not match (truncated, overwritten, from an interrupted write of another tool)
is rebuilt and replaced.  Writes go to a temporary file in the same directory that is renamed into place, so
concurrent writers never expose a half-written entry and the last complete one wins.  When an entry cannot be
written (no space, no linker), the kernel still runs from memory and one CacheWarning says why.
"""
from __future__ import annotations

import hashlib
import os
import re
import tempfile
import threading
import warnings
from pathlib import Path

SUBDIR = "hybrid"
FOOTER_MAGIC = b"NPUSIM-HYBRID-SO"
FOOTER_BYTES = len(FOOTER_MAGIC) + hashlib.sha256().digest_size
_SAFE_NAME = re.compile(r"[^A-Za-z0-9_.-]+")


def sources_fingerprint(target: str) -> str:
    """sha256 of npusim's hybrid package sources, the TVM version and ``target``."""
    import tvm
    digest = hashlib.sha256(f"tvm {tvm.__version__}\0target {target}\0".encode())
    package = Path(__file__).resolve().parent
    for path in sorted(package.glob("*.py")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


class DiskCache:
    """The on-disk store of one runtime's hybrid KernelCache.

    ``directory``: where entries go (None: resolved on first use from ``$NPUSIM_CACHE_DIR``).  ``compiles`` and
    ``loads`` count kernels built by TVM and kernels loaded from disk by this object.
    """

    def __init__(self, target: str, directory=None):
        self.target = target
        self._directory = Path(directory) if directory is not None else None
        self._fingerprint = None
        self._lock = threading.Lock()
        self._write_warned = False
        self.compiles = 0
        self.loads = 0

    @property
    def directory(self) -> Path:
        if self._directory is None:
            from npusim.util.cachedir import usable_cache_dir
            self._directory = usable_cache_dir(SUBDIR)
        return self._directory

    def key(self, *identity) -> str:
        """The entry key of a kernel identified by ``identity`` (values with a stable repr)."""
        if self._fingerprint is None:
            self._fingerprint = sources_fingerprint(self.target)
        digest = hashlib.sha256(self._fingerprint.encode())
        for part in identity:
            digest.update(b"\0" + repr(part).encode())
        return digest.hexdigest()

    def path(self, name: str, key: str) -> Path:
        return self.directory / f"{_SAFE_NAME.sub('_', name)[:48]}-{key[:40]}.so"

    def function(self, name: str, key: str, symbol: str, build):
        """The compiled function ``symbol`` of entry ``key``: loaded from disk when a sound entry exists, else
        ``build()`` (returning a TVM Executable) is compiled, stored, and its function returned."""
        import tvm
        path = self.path(name, key)
        if entry_is_sound(path):
            try:
                function = tvm.runtime.load_module(str(path))[symbol]
                with self._lock:
                    self.loads += 1
                return function
            except Exception:   # noqa: BLE001  a sound footer over a library TVM cannot use: rebuild it
                pass
        executable = build()
        with self._lock:
            self.compiles += 1
        self._store(path, executable)
        return executable[symbol]

    def _store(self, path: Path, executable) -> None:
        """Export ``executable`` to ``path`` (atomically, with the integrity footer)."""
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            handle, temp_name = tempfile.mkstemp(prefix=f".{path.stem}-", suffix=".so", dir=path.parent)
            os.close(handle)
            try:
                executable.export_library(temp_name)
                with open(temp_name, "rb+") as file:
                    body = file.read()
                    file.write(FOOTER_MAGIC + hashlib.sha256(body).digest())
                os.replace(temp_name, path)
            finally:
                if os.path.exists(temp_name):
                    os.unlink(temp_name)
        except Exception as error:  # noqa: BLE001  the kernel works from memory; say once why it is not kept
            self._warn_unwritable(path, error)

    def _warn_unwritable(self, path: Path, error: Exception) -> None:
        if self._write_warned:
            return
        self._write_warned = True
        from npusim.errors.cache import CacheWarning
        warnings.warn(CacheWarning(f"npusim cannot keep compiled hybrid kernels in '{path.parent}' "
                                   f"({type(error).__name__}: {error}); they are compiled again in every process"))


def entry_is_sound(path: Path) -> bool:
    """Whether ``path`` exists and its footer matches its library bytes."""
    try:
        data = path.read_bytes()
    except OSError:
        return False
    if len(data) <= FOOTER_BYTES or data[-FOOTER_BYTES:-hashlib.sha256().digest_size] != FOOTER_MAGIC:
        return False
    body = data[:-FOOTER_BYTES]
    return hashlib.sha256(body).digest() == data[-hashlib.sha256().digest_size:]
