"""``build.lock``: one process at a time builds in an extension's build directory.

An exclusive ``fcntl.flock`` on ``<build_dir>/build.lock``, held while ``build.ninja`` is written and ``ninja``
runs.  Other processes (pytest-xdist workers, data-parallel ranks) block until it is released, then run ninja
themselves, which finds the work done ("no work to do") and returns at once.  The lock file is never deleted
(deleting it while a process waits on it would let two holders in at once); the kernel releases the lock when the
holder closes it or dies, so a killed build leaves no stale lock behind.  Separate ``open()`` calls conflict even
within one process, so threads are serialised too.
"""
from __future__ import annotations

import fcntl
import os

LOCK_FILE_NAME = "build.lock"


class BuildLock:
    """``with BuildLock(build_dir):`` — hold ``<build_dir>/build.lock`` exclusively inside the block."""

    def __init__(self, build_dir: str):
        self.path = os.path.join(build_dir, LOCK_FILE_NAME)
        self._fd = None

    def __enter__(self) -> "BuildLock":
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
        except BaseException:
            os.close(fd)
            raise
        self._fd = fd
        return self

    def __exit__(self, *exc_info) -> None:
        fd, self._fd = self._fd, None
        if fd is not None:
            try:
                fcntl.flock(fd, fcntl.LOCK_UN)
            finally:
                os.close(fd)

    @property
    def held(self) -> bool:
        """Whether this object holds the lock now."""
        return self._fd is not None


__all__ = ["BuildLock", "LOCK_FILE_NAME"]
