"""The chip's L2 during one launch: which bytes of each data_move's GM read it serves.

Every GM byte a launch moves passes through the L2 in lines of ``chip.l2_line_bytes``.  A GM read whose line was
already brought in during this launch -- by any core's earlier read or write of it -- is an L2 hit; the first touch
of a line is a miss and comes from HBM.  The L2 starts empty at every launch (what earlier launches left there is
not modelled).  The model works on the data moves' GM spans (:mod:`npusim.sim.trace`), before any core is timed:

* Order.  Cores run concurrently, so the launch's accesses are put in one sequence per wave (a core's ``w``-th
  block is in wave ``w``; a wave's accesses all come before the next wave's): a wave's blocks take turns, each
  block's ``k``-th GM access before any block's ``k+1``-th (cores that run the same program progress at about
  the same rate), cores in index order within a turn.
* Capacity (``chip.l2_bytes``).  When all the lines the launch touches fit, every line touched before is a hit
  (what LRU gives then).  When they do not, a line is a hit only if at most the L2's capacity in line touches
  lies between its previous touch and this one: a reuse distance counted in touches, not in distinct lines, so
  every hit it finds is one LRU finds too (it may miss a few LRU would hit).
* Bytes.  A line that misses comes from HBM once per turn: its bytes (at most a line, at most what that turn's
  touches of it cover) are charged to those touches in proportion to the bytes each wanted, so cores that ask for
  the same line at the same time share one fetch (on the chip they wait for the same line), and bursts of one
  move that share a line fetch it once.  A move's miss bytes are the sum of its touches' charges.

Only the misses need HBM: :class:`~npusim.sim.cost.core.CoreSim` books a read's miss bytes on the core's HBM share
and its hit bytes on the core's L2 read rate (``chip.l2_read_bytes_per_cycle``).  The L2 matters only where the
HBM share can limit a core (the launch's GM paths are faster than its share); elsewhere it is not computed.
Moves into GM still pay the HBM share for all their bytes (write-back is not modelled) but bring their lines in.
Two parameters are assumed not to alias (different GM buffers).
"""
from __future__ import annotations

from collections import deque
from itertools import chain
from typing import Optional

import numpy as np

from npusim.sim.cost.ops import GM_READ

#: a line id is (parameter << PARAM_SHIFT) | line: room for 2**40 lines of a parameter (an index bound, not hardware)
PARAM_SHIFT = 40


def read_misses(by_core: dict, ops: list, chip) -> Optional[dict]:
    """block -> {pipe index: ((instr_index, miss bytes), ...) of its data_move GM reads in program order}, or
    None when no block has GM spans or no line is touched twice (then every GM read comes from HBM, as without
    an L2).  ``by_core``: core -> its blocks in the order they ran (:meth:`Trace.blocks_by_core`)."""
    blocks, spans, waves, cores = [], [], [], []
    for core, core_blocks in by_core.items():
        for wave, block in enumerate(core_blocks):
            block_spans = block.spans()
            if block_spans:
                blocks.append((block, len(spans), block_spans))
                spans.extend(block_spans)
                waves.append(wave)
                cores.append(core)
    if not spans:
        return None
    table = np.fromiter(chain.from_iterable(spans), np.int64, 6 * len(spans)).reshape(len(spans), 6)
    line_bytes = chip.l2_line_bytes
    if _disjoint(table, line_bytes):
        return None                 # no line is touched twice: every read misses, as without the L2
    counts = np.array([len(block_spans) for _, _, block_spans in blocks])
    firsts = np.array([first for _, first, _ in blocks])
    turns = np.arange(len(spans)) - np.repeat(firsts, counts)          # a span's position in its block
    waves = np.repeat(np.array(waves), counts)
    order = np.lexsort((np.repeat(np.array(cores), counts), turns, waves))
    turn = waves[order] * (int(turns.max()) + 1) + turns[order]
    misses = np.empty(len(spans))
    misses[order] = _miss_bytes(table[order], turn, line_bytes, chip.l2_bytes // line_bytes)
    found = {}
    for block, first, block_spans in blocks:
        per_pipe: dict = {}
        for span, miss in zip(block_spans, misses[first:first + len(block_spans)].tolist()):
            op = ops[span[0]]
            if op[7] == GM_READ:
                per_pipe.setdefault(op[1], []).append((span[0], miss))
        found[block.block] = {pipe: tuple(reads) for pipe, reads in per_pipe.items()}
    return found


def _disjoint(table: np.ndarray, line_bytes: int) -> bool:
    """Whether no two spans (nor any span with itself) can touch a common line: each span's lines from its first
    byte to its last, sorted, do not meet."""
    param, start, nburst, burst, pitch = (table[:, i] for i in range(1, 6))
    first = (param << PARAM_SHIFT) | (start // line_bytes)
    last = (param << PARAM_SHIFT) | ((start + (nburst - 1) * pitch + burst - 1) // line_bytes)
    if np.any((nburst > 1) & (pitch < burst + line_bytes) & (pitch != burst)):
        return False                # bursts of one span may share a line
    order = np.argsort(first, kind="stable")
    return bool(np.all(first[order][1:] > np.maximum.accumulate(last[order])[:-1]))


def _miss_bytes(table: np.ndarray, turn: np.ndarray, line_bytes: int, capacity_lines: int) -> np.ndarray:
    """Miss bytes of each span of ``table`` (rows (instr, param, start, nburst, burst, pitch), in access order;
    ``turn``: each span's turn, non-decreasing)."""
    param, start, nburst, burst, pitch = (table[:, i] for i in range(1, 6))
    dense = (nburst == 1) | (pitch == burst)                   # one contiguous range: one burst of all its bytes
    burst = np.where(dense, nburst * burst, burst)
    nburst = np.where(dense, 1, nburst)
    span_of_burst = np.repeat(np.arange(len(table)), nburst)
    within = np.arange(span_of_burst.size) - np.repeat(np.cumsum(nburst) - nburst, nburst)
    lo = start[span_of_burst] + within * pitch[span_of_burst]
    hi = lo + burst[span_of_burst]
    first, last = lo // line_bytes, (hi - 1) // line_bytes
    lines = last - first + 1
    burst_of_touch = np.repeat(np.arange(lo.size), lines)
    line = first[burst_of_touch] + np.arange(burst_of_touch.size) - np.repeat(np.cumsum(lines) - lines, lines)
    touched = (np.minimum(hi[burst_of_touch], (line + 1) * line_bytes) -
               np.maximum(lo[burst_of_touch], line * line_bytes))
    span_of_touch = span_of_burst[burst_of_touch]
    ids = (param[span_of_touch] << PARAM_SHIFT) | line
    charged = _charges(ids, turn[span_of_touch], touched, line_bytes, capacity_lines)
    return np.bincount(span_of_touch, weights=charged, minlength=len(table))


def _charges(ids: np.ndarray, turns: np.ndarray, touched: np.ndarray, line_bytes: int,
             capacity_lines: int) -> np.ndarray:
    """HBM bytes charged to each line touch (in access order): 0 for a hit; a line that misses is fetched once
    (at most a line, at most what its touches in that turn cover), shared by its touches in that turn in
    proportion to their bytes (see the module docstring)."""
    order = np.argsort(ids, kind="stable")         # a line's touches together, in access order
    ordered, turns = ids[order], turns[order]
    again = np.zeros(ids.size, dtype=bool)           # (sorted) the line was touched before
    again[1:] = ordered[1:] == ordered[:-1]
    hit = again.copy()
    if ids.size - int(np.count_nonzero(again)) > capacity_lines:
        hit &= order - np.roll(order, 1) <= capacity_lines     # touches since the line's previous touch
    group = np.cumsum(~again | (turns != np.roll(turns, 1))) - 1          # a line's touches in one turn
    leaders = np.flatnonzero(np.diff(group, prepend=-1))
    missed = ~hit[leaders]
    wanted = np.bincount(group, weights=touched[order])
    fetched = np.minimum(wanted, line_bytes)
    share = np.where(missed, fetched / np.maximum(wanted, 1), 0.0)
    charged = np.empty(ids.size)
    charged[order] = touched[order] * share[group]
    return charged


def block_queues(found: Optional[dict], block: int) -> Optional[dict]:
    """The per-pipe queues :class:`~npusim.sim.cost.core.CoreSim` pops a block's GM reads from (None: no L2)."""
    reads = None if found is None else found.get(block)
    return None if reads is None else {pipe: deque(queue) for pipe, queue in reads.items()}
