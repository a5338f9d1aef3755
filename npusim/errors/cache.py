"""Errors and warnings of npusim's on-disk caches (built TBE kernels, compiled aot sources)."""
from npusim.errors.base import NpusimError


class CacheDirError(NpusimError, OSError):
    """No usable cache directory: the configured one (``NPUSIM_CACHE_DIR``, default ``~/.cache/npusim``) and the
    private temporary fallback both cannot be created or written.  The message names each directory and why."""


class CacheWarning(UserWarning):
    """The cache carried on after a problem: its directory was unusable (a private temporary cache is used
    instead), or a damaged entry was rebuilt and replaced.  Issued once per process and problem."""


__all__ = ["CacheDirError", "CacheWarning"]
