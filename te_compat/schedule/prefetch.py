"""Double buffering across tiles: the ping-pong tile loop with each tile's loads issued one tile ahead.

A tile is two halves (:meth:`Nest.load_tile`, :meth:`Nest.work_tile`): its loads (after its slot's FREE flag,
raising MTE2 -> V on the slot's event), then its vector work and stores (after MTE2 -> V, raising FREE).  Emitted
one after the other, the scalar unit issues the next tile's loads only once it has issued all of this tile's
work, and every V -> S sync in that work (a broadcast of a row result through a scalar register, a tail copied by
the scalar unit) holds the next load back until the vector unit has caught up: MTE2 idles while V computes.
Here the loads of tile k + 1 are issued before the work of tile k, so MTE2 streams the next tile into the other
slot while V works on this one, whatever the work waits for:

    load(T0, 0)
    for each pair j:  load(T2j+1, 1); work(T2j, 0); load(T2j+2 or the tile after the pairs, 0); work(T2j+1, 1)
    the tiles after the pairs (an odd tile in slot 0, a tail in the next slot): load the next, work this one

Only for a ping-pong level whose deeper levels are single tiles outside any accumulation group (a tile is then
one leaf of the nest); other nests keep the plain order.
"""
from __future__ import annotations

from te_compat.schedule.common import plus


def applies(nest, level: int) -> bool:
    """Whether the ping-pong tiles at ``level`` of ``nest`` can be prefetched (no group boundary below it)."""
    sched = nest.sched
    if not sched.accumulate:
        return True
    return all(nest.order[deeper] != nest.group_axis for deeper in range(level + 1, len(nest.order)))


def pingpong(nest, level: int, axis: int, origin: list, sizes: list, count: int, size: int, base, tail) -> None:
    """The ``count`` tiles of ``size`` from ``base`` along ``axis`` (then ``tail``: (start, size) or None), each
    tile's loads issued before the previous tile's work."""
    kb = nest.em.kb
    leaf = _leaf_of(nest, level, axis, origin, sizes)

    def load(start, extent, slot: int) -> None:
        nest.load_tile(*leaf(start, extent), slot)

    def work(start, extent, slot: int) -> None:
        nest.work_tile(*leaf(start, extent), slot)

    pairs = count // 2
    after = []                       # (start, extent, slot) of the tiles after the pairs
    if count % 2:
        after.append((plus(base, (count - 1) * size), size, 0))
    if tail:
        after.append((tail[0], tail[1], count % 2))
    if pairs:
        load(base, size, 0)
    elif after:
        load(*after[0])
    odd = bool(count % 2)
    if pairs > 1:
        with kb.for_range(0, pairs) as j:
            _pair(kb, load, work, base, size, j, pairs, after, odd)
    elif pairs == 1:
        _pair(kb, load, work, base, size, 0, 1, after, odd)
    for k, tile in enumerate(after):
        if k + 1 < len(after):
            load(*after[k + 1])
        work(*tile)


def _pair(kb, load, work, base, size: int, j, pairs: int, after: list, odd: bool) -> None:
    """Pair ``j`` of ``pairs`` (slots 0 and 1), loading the tile after it while slot 0's tile is worked on; when
    ``odd``, the tile after the last pair is the odd tile, the one at the next pair's place."""
    load(plus(base, (j * 2 + 1) * size), size, 1)
    work(plus(base, j * 2 * size), size, 0)
    following = plus(base, (j * 2 + 2) * size)
    if odd:
        load(following, size, 0)
    elif isinstance(j, int):                      # the only pair: the tile after it is the first after the pairs
        if after:
            load(*after[0])
    else:
        with kb.if_scope(j < pairs - 1):
            load(following, size, 0)
        if after:
            with kb.else_scope():
                load(*after[0])
    work(plus(base, (j * 2 + 1) * size), size, 1)


def _leaf_of(nest, level: int, axis: int, origin: list, sizes: list):
    """start, extent along ``axis`` -> (origin, sizes) of the single leaf tile below ``level``."""
    fixed_origin, fixed_sizes = list(origin), list(sizes)
    for deeper in range(level + 1, len(nest.order)):
        (_, extent, start), _ = nest.plans[deeper]
        fixed_origin[nest.order[deeper]] = start
        fixed_sizes[nest.order[deeper]] = extent

    def leaf(start, extent) -> tuple:
        at, of = list(fixed_origin), list(fixed_sizes)
        at[axis], of[axis] = start, extent
        return at, of
    return leaf
