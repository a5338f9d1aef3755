"""Device memory: the GM allocator (bounds-checked allocations) and each core's local scopes (UB, L1, L0A/B/C).

GM allocations are numpy byte arrays rounded up to whole blocks of the chip (32 bytes); a :class:`DevicePtr` is
(allocation id, byte offset), so pointer arithmetic never leaves its allocation unnoticed.  Local scopes are byte
arenas sized from the chip, created on first use and filled with a poison byte (0xFF: float NaN, integer -1) so
reads of data no instruction wrote stand out; typed views of an arena are cached per dtype.  When a launch ends
its arenas go back to a small pool and the next launch refills them with poison (cheaper than fresh pages: a 1 MiB
L1 arena costs page faults every launch otherwise).
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from npusim.errors.sim import DeviceMemoryError
from npusim.sim.dtypes import np_dtype

POISON_BYTE = 0xFF
ARENA_POOL_LIMIT_BYTES = 64 << 20   # local arenas kept for reuse between launches


class ArenaPool:
    """Byte arenas of finished launches, by size, up to ``limit_bytes`` in all (thread-safe enough: list
    pop/append are atomic in CPython, and the byte count is only a bound).  One pool belongs to a runtime's
    simulator caches (:class:`npusim.sim.caches.SimCaches`)."""

    def __init__(self, limit_bytes: int = ARENA_POOL_LIMIT_BYTES):
        self._free: dict = {}
        self.held_bytes = 0
        self.limit_bytes = int(limit_bytes)

    def take(self, size_bytes: int, fill_byte: int) -> np.ndarray:
        try:
            arena = self._free.get(size_bytes, []).pop()
        except IndexError:
            return np.full(size_bytes, fill_byte, dtype=np.uint8)
        self.held_bytes -= size_bytes
        arena.fill(fill_byte)
        return arena

    def give(self, arena: np.ndarray) -> None:
        if self.held_bytes + arena.size <= self.limit_bytes:
            self.held_bytes += arena.size
            self._free.setdefault(arena.size, []).append(arena)



@dataclass(frozen=True)
class DevicePtr:
    """A device address: byte ``offset`` inside GM allocation ``alloc_id``.  ``ptr + n`` advances n bytes."""

    alloc_id: int
    offset: int = 0

    def __add__(self, nbytes: int) -> "DevicePtr":
        return DevicePtr(self.alloc_id, self.offset + int(nbytes))

    def __repr__(self) -> str:
        return f"DevicePtr(alloc={self.alloc_id}, offset={self.offset})"


@dataclass
class Allocation:
    """One GM allocation: ``size_bytes`` requested, ``data`` holds the 32-byte-rounded bytes."""

    alloc_id: int
    size_bytes: int
    data: np.ndarray


class GlobalMemory:
    """The device's GM: malloc/free with a capacity (the chip's HBM size) and pointer validation; allocations
    are rounded up to ``align_bytes`` (the chip's block)."""

    def __init__(self, capacity_bytes: int, align_bytes: int):
        self.capacity_bytes = int(capacity_bytes)
        self.align_bytes = int(align_bytes)
        self.used_bytes = 0
        self._allocs: dict = {}
        self._ids = itertools.count(1)

    def malloc(self, size_bytes: int) -> DevicePtr:
        size = int(size_bytes)
        if size <= 0:
            raise DeviceMemoryError(f"malloc of {size_bytes} bytes: size must be positive")
        padded = -(-size // self.align_bytes) * self.align_bytes
        if self.used_bytes + padded > self.capacity_bytes:
            raise DeviceMemoryError(f"out of device memory: {size} bytes requested, {self.used_bytes} of "
                                    f"{self.capacity_bytes} in use")
        alloc = Allocation(next(self._ids), size, np.zeros(padded, dtype=np.uint8))
        self._allocs[alloc.alloc_id] = alloc
        self.used_bytes += padded
        return DevicePtr(alloc.alloc_id, 0)

    def free(self, ptr: DevicePtr) -> None:
        alloc = self.allocation(ptr)
        if ptr.offset != 0:
            raise DeviceMemoryError(f"free({ptr!r}): not the start of an allocation")
        self.used_bytes -= alloc.data.size
        del self._allocs[alloc.alloc_id]

    def allocation(self, ptr) -> Allocation:
        if not isinstance(ptr, DevicePtr):
            raise DeviceMemoryError(f"{ptr!r} is not a device pointer")
        alloc = self._allocs.get(ptr.alloc_id)
        if alloc is None:
            raise DeviceMemoryError(f"{ptr!r} points to freed or unknown device memory")
        return alloc

    def region(self, ptr: DevicePtr, nbytes: int) -> np.ndarray:
        """The ``nbytes`` bytes at ``ptr`` as a writable uint8 view; raises if they leave the allocation."""
        alloc = self.allocation(ptr)
        end = ptr.offset + int(nbytes)
        if ptr.offset < 0 or end > alloc.data.size:
            raise DeviceMemoryError(f"{nbytes} bytes at {ptr!r} overrun the allocation of {alloc.size_bytes} "
                                    f"bytes")
        return alloc.data[ptr.offset:end]

    def tail(self, ptr: DevicePtr) -> np.ndarray:
        """All bytes from ``ptr`` to the end of its (32-byte rounded) allocation."""
        alloc = self.allocation(ptr)
        if not 0 <= ptr.offset <= alloc.data.size:
            raise DeviceMemoryError(f"{ptr!r} lies outside its allocation of {alloc.size_bytes} bytes")
        return alloc.data[ptr.offset:]


class CoreMemory:
    """One core's local scopes, created on first use (from ``pool`` when given); also the core's CMPMASK
    register."""

    def __init__(self, chip, fill_byte: int = POISON_BYTE, pool: "ArenaPool | None" = None):
        self.chip = chip
        self.fill_byte = fill_byte
        self.pool = pool
        self._arenas: dict = {}
        self._views: dict = {}
        self.cmpmask = None

    def arena(self, scope: str) -> np.ndarray:
        arena = self._arenas.get(scope)
        if arena is None:
            size = self.chip.scope_bytes(scope)
            arena = (np.full(size, self.fill_byte, dtype=np.uint8) if self.pool is None
                     else self.pool.take(size, self.fill_byte))
            self._arenas[scope] = arena
        return arena

    def release(self) -> None:
        """Hand the arenas back to the pool; this core memory (and every view of it) must not be used again."""
        arenas, self._arenas, self._views = self._arenas, {}, {}
        if self.pool is not None:
            for arena in arenas.values():
                self.pool.give(arena)

    def view(self, scope: str, dtype: str) -> np.ndarray:
        """The whole scope as a 1-D array of ``dtype``."""
        key = (scope, dtype)
        view = self._views.get(key)
        if view is None:
            arena = self.arena(scope)
            isz = np_dtype(dtype).itemsize
            view = arena[:arena.size - arena.size % isz].view(np_dtype(dtype))
            self._views[key] = view
        return view

    def scopes_in_use(self) -> list:
        return sorted(self._arenas)
