"""Runs of reductions: consecutive ``vcadd`` instructions of one shape whose sources and destinations step by a
constant, as TBE schedules emit for a row sum over column chunks (``vcadd(dst[k], src[64 k], ...)`` for k =
0..15).  :func:`reduce_link` describes one such instruction (constant starts, mask, repeat and strides, every
lane active, its run-time checks passed at compile time); :mod:`npusim.sim.lockstep.runs` runs a run of them as
one reduction over a (rows x instructions x repeats x lanes) view when the instructions cannot see each other's
results (no destination element is written twice, no destination byte is read).  Each result is the one its
instruction computes (the same tree over the same lanes, saturated the same way)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional

import numpy as np

from npusim.errors.sim import SimulatorError
from npusim.sim.expr import Const
from npusim.sim.isa.batch_local import check_local
from npusim.sim.isa.plans import AccessPlan, check_overlap


@dataclass(frozen=True, eq=False)
class ReduceLink:
    """One reduction that may join a run: operands' view keys and constant starts, plans, the reduction of a
    (... x lanes) view (``reduce``, with ``npdt`` and ``fix`` identifying it), record and own batched closure."""

    src_key: tuple
    dst_key: tuple
    src_base: int
    dst_base: int
    src_plan: AccessPlan
    dst_plan: AccessPlan
    repeat: int
    lanes: int
    row_step: int
    reduce: tuple
    isz: int
    record: tuple
    batch: Callable

    def same_shape(self, other: "ReduceLink") -> bool:
        return (other.src_key == self.src_key and other.dst_key == self.dst_key and other.repeat == self.repeat
                and other.lanes == self.lanes and other.row_step == self.row_step
                and other.reduce[0] is self.reduce[0] and other.reduce[1] == self.reduce[1]
                and other.reduce[2] is self.reduce[2] and np.array_equal(other.dst_plan.rel, self.dst_plan.rel))


def reduce_link(kc, dst, src, shape, dst_stride, per_repeat: int, reduce: tuple, index: int,
                batch: Callable) -> Optional[ReduceLink]:
    """The instruction as a run link, or None."""
    if shape.static_plans is None or not isinstance(dst_stride, Const) or not isinstance(shape.mask, Const):
        return None
    if not (isinstance(dst.base, Const) and isinstance(src.base, Const)):
        return None
    repeat, (src_plan,) = shape.static_plans
    lanes = shape.lanes
    if not repeat or kc.plans.mask_lanes(shape.mask.value, lanes).size != lanes:
        return None
    if src_plan.contiguous:
        row_step = lanes
    elif src_plan.grid is not None and src_plan.grid[0] == (repeat, lanes) and src_plan.grid[1][1] == 1:
        row_step = src_plan.grid[1][0]
    else:
        return None
    dst_plan = kc.plans.strided(repeat, per_repeat, dst_stride.value * per_repeat)
    try:
        check_local(kc.site, dst, dst.base.value, dst_plan, 0, False)
        check_local(kc.site, src, src.base.value, src_plan, kc.chip.block_bytes, False)
        check_overlap(kc.site, dst, dst.base.value, dst_plan, src, src.base.value, src_plan, elementwise=False)
    except SimulatorError:
        return None
    first = src.base.value + (src_plan.first if src_plan.contiguous else int(src_plan.rel[0]))
    return ReduceLink(src.key, dst.key, first, dst.base.value, src_plan, dst_plan, repeat, lanes, row_step, reduce,
                      src.isz, (index, repeat), batch)
