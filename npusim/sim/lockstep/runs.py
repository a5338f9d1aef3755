"""Running a run of reduction links (:mod:`npusim.sim.isa.batch_reduce_run`) as one closure of a batched
program: one strided (rows x instructions x repeats x lanes) view of the sources, one reduction, one store of
every result; the trace gets every instruction's record."""
from __future__ import annotations

from typing import Callable, Optional

import numpy as np
from numpy.lib.stride_tricks import as_strided

#: runs shorter than this keep their instructions' own closures
MIN_LINKS = 3


def link_of(node):
    instr = getattr(node, "instr", None)
    return None if instr is None else instr.extra.get("reduce_run")


def run_length(nodes, start: int) -> int:
    """How many nodes from ``start`` form a run (0 or 1: none)."""
    first = link_of(nodes[start])
    if first is None:
        return 0
    count = 1
    while start + count < len(nodes):
        other = link_of(nodes[start + count])
        if other is None or not first.same_shape(other):
            break
        second = link_of(nodes[start + 1])
        if (other.src_base - first.src_base != count * (second.src_base - first.src_base)
                or other.dst_base - first.dst_base != count * (second.dst_base - first.dst_base)):
            break
        count += 1
    return count


def fused(links: list) -> Optional[Callable]:
    """One batched closure for ``links``, or None when they may see each other's results."""
    first, count = links[0], len(links)
    src_step = links[1].src_base - first.src_base
    if src_step < 0:
        return None
    positions = np.concatenate([first.dst_plan.rel + link.dst_base for link in links])
    if np.unique(positions).size != positions.size:
        return None
    src_lo = first.src_base * first.isz
    src_hi = (links[-1].src_base + (first.repeat - 1) * first.row_step + first.lanes) * first.isz
    dst_isz = first.isz
    dst_lo, dst_hi = int(positions.min()) * dst_isz, (int(positions.max()) + 1) * dst_isz
    if first.src_key[0] == first.dst_key[0] and src_lo < dst_hi and dst_lo < src_hi:
        return None
    reduce, npdt, fix = first.reduce
    shape = (count, first.repeat, first.lanes)
    steps = tuple(s * first.isz for s in (src_step, first.row_step, 1))
    records = [link.record for link in links]
    src_key, dst_key, start = first.src_key, first.dst_key, first.src_base

    def run(b):
        views, rows = b.views, b.rows
        view = views[src_key]
        cube = as_strided(view[:, start:], shape=(view.shape[0],) + shape, strides=(view.strides[0],) + steps,
                          writeable=False)
        if rows is not None:
            cube = cube[rows]
        results = reduce(cube, npdt, fix).reshape(cube.shape[0], -1)
        target = views[dst_key]
        if rows is None:
            target[:, positions] = results
        else:
            target[rows[:, None], positions] = results
        b.append_records(records)
    return run
