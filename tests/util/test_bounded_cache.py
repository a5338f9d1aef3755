"""BoundedCache: the one cache helper (LRU bound, statistics, eviction callback, concurrent use)."""
import threading

import pytest

from npusim.util.cache import BoundedCache


def test_least_recently_used_entries_go_first():
    cache = BoundedCache("t", 2)
    cache.put("a", 1)
    cache.put("b", 2)
    assert cache.get("a") == 1          # "a" is now the most recent
    cache.put("c", 3)                   # evicts "b"
    assert "b" not in cache and cache.get("a") == 1 and cache.get("c") == 3
    stats = cache.stats()
    assert (stats.size, stats.maxsize, stats.evictions) == (2, 2, 1)
    assert stats.hits == 3 and stats.misses == 0


def test_misses_and_defaults_are_counted():
    cache = BoundedCache("t", 4)
    assert cache.get("x") is None and cache.get("x", "dflt") == "dflt"
    assert cache.stats().misses == 2


def test_eviction_and_clear_call_on_evict():
    dropped = []
    cache = BoundedCache("t", 1, on_evict=lambda k, v: dropped.append((k, v)))
    cache.put(1, "one")
    cache.put(2, "two")
    cache.clear()
    assert dropped == [(1, "one"), (2, "two")] and len(cache) == 0


def test_get_or_create_builds_once_per_key():
    calls = []
    cache = BoundedCache("t", 8)
    make = lambda: calls.append(1) or object()   # noqa: E731
    first = cache.get_or_create("k", make)
    assert cache.get_or_create("k", make) is first and len(calls) == 1


def test_maxsize_must_be_positive():
    with pytest.raises(ValueError, match="maxsize must be at least 1"):
        BoundedCache("t", 0)


def test_concurrent_puts_and_gets_keep_the_bound():
    cache = BoundedCache("t", 16)

    def work(base):
        for i in range(2000):
            cache.put((base, i % 40), i)
            cache.get((base, (i * 7) % 40))

    threads = [threading.Thread(target=work, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(cache) == 16 and cache.stats().evictions > 0
