"""What a lockstep batch did to GM: an access log (to prove the blocks did not depend on each other's order) and
an undo log (to restore GM when the batch gives up and the launch runs block by block instead).

Blocks that run one after another see each other's GM writes in block order; a batch interleaves them
instruction by instruction.  The two orders give the same bytes when, for every pair of accesses by different
blocks that touch a common byte and of which one writes, the lower block's access comes first in the batch too
(a store or atomic accumulation by one instruction applies the blocks in block order, so such pairs are in
order).
:meth:`GmLog.in_block_order` checks exactly that over the logged byte intervals: a quick test of per-block spans
first, then the exact pairwise test on the regions where blocks meet.  Only accesses to GM arguments that some
instruction may write (or that share bytes with one) are logged; read-only inputs cannot be part of a conflict.
"""
from __future__ import annotations

import numpy as np

READ, WRITE, ATOMIC = 0, 1, 2
#: the exact test looks at every pair of accesses in a region where blocks meet; beyond this many accesses in
#: one region the batch gives up (the launch runs block by block)
EXACT_LIMIT = 3000


class GmLog:
    """GM accesses and overwritten bytes of one lockstep launch.  ``addresses``: param index -> host address of
    its binding; ``tracked``: indices whose accesses are logged; ``restore``: indices whose overwritten bytes are
    saved for an undo (see :func:`npusim.sim.lockstep.runner.restore_set`)."""

    def __init__(self, addresses: dict, tracked: frozenset, restore: frozenset = frozenset()):
        self.addresses = addresses
        self.tracked = tracked
        self.restore = restore
        self.events: list = []
        self.undo: list = []
        self.time = 0

    def log(self, index: int, bids, lo_bytes, hi_bytes, kind: int) -> None:
        """Record that blocks ``bids`` (array) accessed bytes [lo, hi) of parameter ``index`` (scalars or one
        entry per block) at the next time step."""
        self.time += 1
        base = self.addresses[index]
        self.events.append((self.time, bids, base + lo_bytes, base + hi_bytes, kind))

    def save(self, param: int, view: np.ndarray, index) -> None:
        """Remember ``view[index]`` of parameter ``param`` before it is overwritten (``index``: a slice, an index
        array or a tuple), when ``param`` is one whose bytes an undo must put back."""
        if param in self.restore:
            self.undo.append((view, index, np.array(view[index], copy=True)))

    def rollback(self) -> None:
        """Put back every byte the batch overwrote, newest first."""
        for view, index, old in reversed(self.undo):
            view[index] = old
        self.undo.clear()

    def in_block_order(self) -> bool:
        """Whether the logged accesses give the same bytes as running the blocks one after another."""
        if not self.events:
            return True
        t, blk, lo, hi, kind = _flatten(self.events)
        write = kind != READ
        if not write.any():
            return True
        if _spans_apart(blk, lo, hi, write):
            return True
        return _exact(t, blk, lo, hi, kind, write)


def _flatten(events: list) -> tuple:
    sizes = [len(e[1]) for e in events]
    t = np.repeat(np.array([e[0] for e in events], dtype=np.int64), sizes)
    blk = np.concatenate([e[1] for e in events]).astype(np.int64)
    lo = np.concatenate([np.broadcast_to(np.asarray(e[2], dtype=np.int64), (n,)) for e, n in zip(events, sizes)])
    hi = np.concatenate([np.broadcast_to(np.asarray(e[3], dtype=np.int64), (n,)) for e, n in zip(events, sizes)])
    kind = np.repeat(np.array([e[4] for e in events], dtype=np.int8), sizes)
    keep = hi > lo
    return t[keep], blk[keep], lo[keep], hi[keep], kind[keep]


def _spans_apart(blk, lo, hi, write) -> bool:
    """No block's written span meets another block's accessed span."""
    blocks, inverse = np.unique(blk, return_inverse=True)
    count = blocks.size
    big = np.iinfo(np.int64).max
    a_lo, a_hi = np.full(count, big), np.full(count, -big)
    np.minimum.at(a_lo, inverse, lo)
    np.maximum.at(a_hi, inverse, hi)
    w_lo, w_hi = np.full(count, big), np.full(count, -big)
    np.minimum.at(w_lo, inverse[write], lo[write])
    np.maximum.at(w_hi, inverse[write], hi[write])
    meet = (w_lo[:, None] < a_hi[None, :]) & (a_lo[None, :] < w_hi[:, None])
    np.fill_diagonal(meet, False)
    return not meet.any()


def _merge(lo, hi) -> tuple:
    """(component starts, component ends, component of each interval) of the union of [lo, hi) intervals."""
    order = np.argsort(lo, kind="stable")
    slo, shi = lo[order], hi[order]
    reach = np.maximum.accumulate(shi)
    starts = np.ones(slo.size, dtype=bool)
    starts[1:] = slo[1:] >= reach[:-1]
    comp_sorted = np.cumsum(starts) - 1
    comp = np.empty_like(comp_sorted)
    comp[order] = comp_sorted
    ends = np.maximum.reduceat(shi, np.flatnonzero(starts))
    return slo[starts], ends, comp


def _exact(t, blk, lo, hi, kind, write) -> bool:
    u_lo, u_hi, _ = _merge(lo[write], hi[write])
    j = np.searchsorted(u_hi, lo, side="right")
    inside = j < u_lo.size
    inside[inside] = u_lo[j[inside]] < hi[inside]
    t, blk, lo, hi, kind = t[inside], blk[inside], lo[inside], hi[inside], kind[inside]
    _, _, comp = _merge(lo, hi)
    order = np.argsort(comp, kind="stable")
    bounds = np.flatnonzero(np.diff(comp[order])) + 1
    for group in np.split(order, bounds):
        if np.unique(blk[group]).size < 2:
            continue
        if group.size > EXACT_LIMIT or _bad_pair(t[group], blk[group], lo[group], hi[group], kind[group]):
            return False
    return True


def _bad_pair(t, blk, lo, hi, kind) -> bool:
    """Some pair of accesses by different blocks overlaps, one of them writes, and the batch ran them out of
    block order.  Accesses of one instruction (the same time) are in order when both write: a batched store or
    atomic accumulation applies the blocks in block order wherever they meet; a read and a write of one
    instruction are not (every block reads before any writes)."""
    overlap = (lo[:, None] < hi[None, :]) & (lo[None, :] < hi[:, None])
    writes = kind != READ
    relevant = overlap & (blk[:, None] != blk[None, :]) & (writes[:, None] | writes[None, :])
    lower_first = blk[:, None] < blk[None, :]
    later = t[:, None] > t[None, :]
    same = t[:, None] == t[None, :]
    out_of_order = (lower_first & later) | (same & ~(writes[:, None] & writes[None, :]))
    return bool((relevant & out_of_order).any())
