"""The on-disk cache of kernels built on a user's behalf (Custom func_type="tbe").

Layout: ``$NPUSIM_CACHE_DIR/tbe/<key digest>/kernel_meta/<kernel name>.{o,json}`` (default root
``~/.cache/npusim``).  The key digest covers what the build depends on (the caller's key plus
:func:`compiler_fingerprint`, so editing the DSL/scheduler/build code invalidates old entries).  An entry is
built in a private staging directory and published with one ``rename``, so concurrent processes never see a
half-written entry.
"""
from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
from pathlib import Path

ENV_VAR = "NPUSIM_CACHE_DIR"
SUBDIR = "tbe"
META_SUBDIR = "kernel_meta"
#: source trees whose code decides what a build produces (relative to the repository root)
_FINGERPRINT_ROOTS = ("te_compat", "npusim/custom/backends/tbe.py")

_fingerprint: dict = {}  # explicit cache: the fingerprint, computed once per process


def cache_root() -> Path:
    """``$NPUSIM_CACHE_DIR/tbe``, default ``~/.cache/npusim/tbe``."""
    root = os.environ.get(ENV_VAR)
    base = Path(root).expanduser() if root else Path.home() / ".cache" / "npusim"
    return base / SUBDIR


def compiler_fingerprint() -> str:
    """sha256 over the te_compat sources and the tbe backend (computed once per process)."""
    cached = _fingerprint.get("value")
    if cached is None:
        repo = Path(__file__).resolve().parents[2]
        digest = hashlib.sha256()
        for root in _FINGERPRINT_ROOTS:
            base = repo / root
            files = sorted(base.rglob("*.py")) if base.is_dir() else [base]
            for path in files:
                if path.is_file():
                    digest.update(str(path.relative_to(repo)).encode() + b"\0" + path.read_bytes() + b"\0")
        cached = _fingerprint["value"] = digest.hexdigest()
    return cached


def key_digest(key_text: str) -> str:
    """The cache directory name of a key (the key's text with the compiler fingerprint)."""
    return hashlib.sha256((compiler_fingerprint() + "\n" + key_text).encode("utf-8")).hexdigest()[:40]


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
