"""One bounded, thread-safe cache with statistics: the only kind of cache npusim keeps.

Every cache lives in a :class:`npusim.sim.runtime.Runtime` (``runtime.cache(name, maxsize)``); nothing in npusim
keeps a cache in a module global.  Eviction is least-recently-used; ``stats()`` reports hits, misses, evictions and
size, so a benchmark or a test can see whether a cache works.

    kernels = runtime.cache("tbe.built", maxsize=256)
    built = kernels.get(key)
    if built is None:
        built = kernels.put(key, build())
    kernels.stats()       # CacheStats(name='tbe.built', size=1, maxsize=256, hits=0, misses=1, evictions=0)
"""
from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Callable, Hashable, Optional

_MISSING = object()


@dataclass(frozen=True)
class CacheStats:
    """A snapshot of one cache: entries held (``size``) of at most ``maxsize``, lookups that found an entry
    (``hits``) or not (``misses``), entries dropped to make room (``evictions``)."""

    name: str
    size: int
    maxsize: int
    hits: int
    misses: int
    evictions: int


class BoundedCache:
    """A least-recently-used map of at most ``maxsize`` entries (``maxsize >= 1``).

    ``on_evict(key, value)``, when given, is called (outside the lock) for every entry evicted or cleared, so a
    cache of resources (loaded libraries, worker processes) can release them.
    """

    def __init__(self, name: str, maxsize: int, on_evict: Optional[Callable] = None):
        if int(maxsize) < 1:
            raise ValueError(f"cache {name!r}: maxsize must be at least 1, got {maxsize}")
        self.name, self.maxsize, self._on_evict = name, int(maxsize), on_evict
        self._data: OrderedDict = OrderedDict()
        self._lock = threading.Lock()
        self._hits = self._misses = self._evictions = 0

    def get(self, key: Hashable, default=None):
        """The value for ``key`` (now the most recently used), or ``default``.

        Lock-free (hot paths look plans and kernels up per instruction or per call): each OrderedDict operation
        is atomic under the GIL, a racing eviction only makes this a miss, and the hit/miss counters are
        best-effort under threads."""
        data = self._data
        try:
            value = data[key]
        except KeyError:
            self._misses += 1
            return default
        self._hits += 1
        try:
            data.move_to_end(key)
        except KeyError:  # evicted by another thread meanwhile: the value read is still valid
            pass
        return value

    def put(self, key: Hashable, value):
        """Store ``value`` under ``key`` (evicting the least recently used entries beyond ``maxsize``); returns
        ``value``."""
        with self._lock:
            self._data[key] = value
            self._data.move_to_end(key)
            evicted = []
            while len(self._data) > self.maxsize:
                evicted.append(self._data.popitem(last=False))
                self._evictions += 1
        self._release(evicted)
        return value

    def get_or_create(self, key: Hashable, factory: Callable[[], object]):
        """The value for ``key``, made by ``factory()`` and stored when missing.  ``factory`` runs outside the
        lock: two threads missing the same key at once may both build it; the first one stored wins."""
        value = self.get(key, _MISSING)
        if value is not _MISSING:
            return value
        made = factory()
        with self._lock:
            present = self._data.get(key, _MISSING)
            if present is not _MISSING:
                return present
        return self.put(key, made)

    def pop(self, key: Hashable, default=None):
        """Remove ``key`` and return its value (``default`` if absent); ``on_evict`` is not called."""
        with self._lock:
            return self._data.pop(key, default)

    def clear(self) -> None:
        """Drop every entry (``on_evict`` is called for each)."""
        with self._lock:
            dropped = list(self._data.items())
            self._data.clear()
        self._release(dropped)

    def stats(self) -> CacheStats:
        with self._lock:
            return CacheStats(self.name, len(self._data), self.maxsize, self._hits, self._misses, self._evictions)

    def values(self) -> list:
        with self._lock:
            return list(self._data.values())

    def __contains__(self, key) -> bool:
        with self._lock:
            return key in self._data

    def __len__(self) -> int:
        return len(self._data)

    def __repr__(self) -> str:
        stats = self.stats()
        return (f"BoundedCache({stats.name!r}, size={stats.size}/{stats.maxsize}, hits={stats.hits}, "
                f"misses={stats.misses}, evictions={stats.evictions})")

    def _release(self, items: list) -> None:
        if self._on_evict is not None:
            for key, value in items:
                self._on_evict(key, value)


__all__ = ["BoundedCache", "CacheStats"]
