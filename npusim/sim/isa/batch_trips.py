"""Many trips of a loop around one ``data_move`` into local memory, as one copy (:mod:`npusim.sim.lockstep.trips`).

A loop whose body is a move from GM (or from another local scope) into local memory, with both starts affine in
the loop variable, does the same as one strided copy of every trip at once when the trips cannot see each other:
the destinations of different trips are disjoint (the destination steps by at least its span), and nothing a trip
writes is read by another (the source is GM, which the loop does not write, or a different local scope).  Every
trip's checks are those of the first and the last trip (starts are monotone in the trip; alignment holds for
all trips when it holds for the first and the step keeps it); when any of them would fail the loop runs trip by
trip instead, so the error is raised by the trip that makes it.  Trace records are the trips' records, in order.
"""
from __future__ import annotations

import functools
from typing import Callable, Optional

import numpy as np
from numpy.lib.stride_tricks import as_strided

from npusim.errors.sim import SimulatorError
from npusim.sim.batch_expr import evaluator_for, free_vars
from npusim.sim.expr import _affine
from npusim.sim.isa.batch_local import check_local
from npusim.sim.isa.batch_moves import Side, _even_step, _pattern
from npusim.sim.isa.saturate import has_nonfinite
from npusim.sim.lockstep.gm_log import READ


class TripMove:
    """What a loop needs to run many trips of one compiled ``data_move`` at once (static burst geometry, local
    destination)."""

    def __init__(self, kc, src_b, dst_b, fixed: tuple, index: int):
        self.src, self.dst = Side(kc, src_b), Side(kc, dst_b)
        self.src_affine = _affine(src_b.offset, kc.slots)
        self.dst_affine = _affine(dst_b.offset, kc.slots)
        self.units = (src_b.unit, dst_b.unit)
        self.fixed = fixed
        self.record = (index, fixed[0] * fixed[1])
        self.src_param = src_b.key[1] if src_b.is_gm else None
        self.same_scope = not src_b.is_gm and src_b.key[0] == dst_b.key[0]

    def runner(self, slot: int) -> Optional[Callable]:
        """``run(b, low, count) -> bool`` running trips low .. low+count-1 of a loop whose variable lives in
        ``slot`` (False, having changed nothing, when it cannot), or None when the move never can."""
        if self.src_affine is None or self.dst_affine is None or self.same_scope:
            return None
        src_step = self.src_affine[1].get(slot, 0) * self.units[0]
        dst_step = self.dst_affine[1].get(slot, 0) * self.units[1]
        nburst, burst_bytes, src_pitch, dst_pitch, _ = self.fixed
        src_span = (nburst - 1) * src_pitch + burst_bytes
        dst_span = (nburst - 1) * dst_pitch + burst_bytes
        if src_step < 0 or dst_step < dst_span or dst_step % self.dst.align:
            return None
        if self.src_param is None and src_step % self.src.align:
            return None
        src, dst, record, param = self.src, self.dst, self.record, self.src_param
        shape = (nburst, burst_bytes)

        def run(b, low: int, count: int) -> bool:
            b.env[slot] = low
            s0, d0 = src.starts(b), dst.starts(b)
            if isinstance(d0, np.ndarray) or (param is None and isinstance(s0, np.ndarray)):
                return False
            try:
                for side, start, step, span in ((src, s0, src_step, src_span), (dst, d0, dst_step, dst_span)):
                    side.check(b, start, span)
                    side.check(b, start + (count - 1) * step, span)
            except SimulatorError:
                return False
            data = _source(b, src, param, s0, count, src_step, src_span, shape, src_pitch)
            view = b.views[dst.op.key]
            target = as_strided(view[:, d0:], shape=(view.shape[0], count) + shape,
                                strides=(view.strides[0], dst_step, dst_pitch, 1))
            if b.rows is None:
                target[...] = data
            else:
                target[b.rows] = data
            _records(b, record, count)
            if param is not None:       # every trip's GM span, for the cost model's L2
                b.touch(record[0], param, s0, (nburst, burst_bytes, src_pitch), count, src_step)
            b.env[slot] = low + count - 1
            return True
        return run


def _source(b, src: Side, param, s0, count: int, step: int, span: int, shape: tuple, pitch: int) -> np.ndarray:
    """rows x trips x bursts x burst bytes of the source (a strided view where possible)."""
    view = b.views[src.op.key]
    if param is None:
        grid = as_strided(view[:, s0:], shape=(view.shape[0], count) + shape,
                          strides=(view.strides[0], step, pitch, 1), writeable=False)
        return grid if b.rows is None else grid[b.rows]
    starts = s0 if isinstance(s0, np.ndarray) else np.full(b.active_count(), s0, dtype=np.int64)
    if param in b.gm.tracked:
        b.gm.log(param, b.active_bids(), starts, starts + (count - 1) * step + span, READ)
    row_step = _even_step(starts)
    if row_step is not None:
        return as_strided(view[int(starts[0]):], shape=(starts.size, count) + shape,
                          strides=(row_step, step, pitch, 1), writeable=False)
    trips = np.arange(count, dtype=np.int64) * step
    index = starts[:, None, None] + trips[None, :, None] + _pattern(shape[0], shape[1], pitch)[None, None, :]
    return view[index].reshape((starts.size, count) + shape)


def _records(b, record: tuple, count: int) -> None:
    b.append_records((record,), count)


class TripVector:
    """What a loop needs to run many trips of one element-wise vector instruction at once: static mask, repeat
    and strides, operand starts affine in the loop variable and the same in every block, a scalar (if any) that
    does not depend on the loop variable.  Trips are independent when their destinations are disjoint (the
    destination steps by at least its extent) and no trip reads bytes any trip writes, except a source that is
    exactly the destination (in place); then the trips' element-wise results are one evaluation over a
    (rows x trips x elements) grid, saturated as the single trips would be."""

    def __init__(self, kc, instr, tensors: tuple, static_plans: tuple, raw: Callable, fix, npdt, scalar, index):
        self.tensors, self.repeat, self.plans = tensors, static_plans[0], static_plans[1]
        self.affine = [_affine(op.offset, kc.slots) for op in tensors]
        self.bases = [evaluator_for_base(kc, op) for op in tensors]
        self.raw, self.fix, self.npdt, self.scalar = raw, fix, npdt, scalar
        self.scalar_vars = free_vars(instr.arg("scalar")) if scalar is not None else set()
        self.scalar_expr = instr.arg("scalar") if scalar is not None else None
        self.dup_only = len(tensors) == 1 and scalar is not None and fix is None
        self.site, self.align = kc.site, kc.chip.block_bytes
        self.record = (index, static_plans[0])
        self.slots = kc.slots

    def runner(self, slot: int) -> Optional[Callable]:
        """As :meth:`TripMove.runner`."""
        if any(a is None for a in self.affine) or any(self.slots.slots.get(v) == slot for v in self.scalar_vars):
            return None
        steps = [a[1].get(slot, 0) * op.unit for a, op in zip(self.affine, self.tensors)]
        plans, tensors = self.plans, self.tensors
        if any(s < 0 for s in steps) or any(not (p.contiguous or p.grid is not None) for p in plans):
            return None
        dst_plan = plans[0]
        if dst_plan.write_sel is not None or steps[0] < dst_plan.last - dst_plan.first + 1:
            return None
        if any((s * op.isz) % self.align for s, op in zip(steps, tensors)):
            return None
        return functools.partial(self._run, slot=slot, steps=steps)

    def _independent(self, starts: list, steps: list, count: int) -> bool:
        dst, plan = self.tensors[0], self.plans[0]
        d_lo = (starts[0] + plan.first) * dst.isz
        d_hi = (starts[0] + (count - 1) * steps[0] + plan.last + 1) * dst.isz
        for op, start, step, src_plan in zip(self.tensors[1:], starts[1:], steps[1:], self.plans[1:]):
            if op.key[0] != dst.key[0]:
                continue
            same = (op.key == dst.key and start == starts[0] and step == steps[0]
                    and (src_plan is plan or np.array_equal(src_plan.rel, plan.rel)))
            s_lo = (start + src_plan.first) * op.isz
            s_hi = (start + (count - 1) * step + src_plan.last + 1) * op.isz
            if not same and s_lo < d_hi and d_lo < s_hi:
                return False
        return True

    def _run(self, b, low: int, count: int, slot: int, steps: list) -> bool:
        b.env[slot] = low
        starts = [fn(b) for fn in self.bases]
        if any(type(s) is not int for s in starts) or not self._independent(starts, steps, count):
            return False
        try:
            for op, start, step, plan in zip(self.tensors, starts, steps, self.plans):
                for trip_start in (start, start + (count - 1) * step):
                    check_local(self.site, op, trip_start, plan, self.align, True)
        except SimulatorError:
            return False
        views, rows = b.views, b.rows
        if self._into_destination(b, starts, steps, count):
            _records(b, self.record, count)
            b.env[slot] = low + count - 1
            return True
        inputs = [_trip_grid(views[op.key], rows, start, step, count, plan, False)
                  for op, start, step, plan in zip(self.tensors[1:], starts[1:], steps[1:], self.plans[1:])]
        inputs = [grid.reshape(grid.shape[0], count, -1) for grid in inputs]     # elements in plan order
        value = None
        if self.scalar is not None:
            value = self.scalar(b)
            if np.ndim(value) == 2:
                value = value.reshape(value.shape + (1,))
        with np.errstate(all="ignore"):
            result = self.raw(inputs, value, self.npdt)
            if self.fix is not None:
                result = self.fix(np.asarray(result))
        target = _trip_grid(views[self.tensors[0].key], None, starts[0], steps[0], count, self.plans[0], True)
        result = _shaped(result, target.shape[1:], b.active_count())
        if rows is None:
            target[...] = result
        else:
            target[rows] = result
        _records(b, self.record, count)
        b.env[slot] = low + count - 1
        return True


    def _into_destination(self, b, starts: list, steps: list, count: int) -> bool:
        """Every trip's results computed by the instruction's ufunc straight into the destination grid (numpy
        computes overlapping operands as if from copies, so this is what computing a new array and storing it
        gives), then saturated in place where a value is not finite; False (nothing done) when the rows are a
        subset, the instruction has a scalar or no ufunc, or an operand's grid differs in shape from the
        destination's."""
        ufunc = getattr(self.raw, "ufunc", None)
        if ufunc is None or self.scalar is not None or b.rows is not None:
            return False
        views = b.views
        target = _trip_grid(views[self.tensors[0].key], None, starts[0], steps[0], count, self.plans[0], True)
        grids = [_trip_grid(views[op.key], None, start, step, count, plan, False)
                 for op, start, step, plan in zip(self.tensors[1:], starts[1:], steps[1:], self.plans[1:])]
        if any(grid.shape != target.shape for grid in grids):
            return False
        with np.errstate(all="ignore"):
            ufunc(*grids, out=target)
            if self.fix is not None and has_nonfinite(target):
                target[...] = self.fix(target)
        return True

    def dup_span(self, b, low: int, count: int, slot: int) -> Optional[tuple]:
        """For a ``vector_dup`` (one destination, no sources): (start, step, first byte, end byte) of its
        destination over trips low .. low+count-1, with every trip's checks passed; None when a check would fail
        or the trips are not independent (the loop then runs trip by trip)."""
        steps_of = self.runner(slot)
        if steps_of is None or not self.dup_only:
            return None
        op, plan = self.tensors[0], self.plans[0]
        step = steps_of.keywords["steps"][0]
        b.env[slot] = low
        start = self.bases[0](b)
        if type(start) is not int:
            return None
        try:
            for trip_start in (start, start + (count - 1) * step):
                check_local(self.site, op, trip_start, plan, self.align, True)
        except SimulatorError:
            return None
        return start, step, (start + plan.first) * op.isz, (start + (count - 1) * step + plan.last + 1) * op.isz

    def dup_write(self, b, start: int, step: int, count: int, values: np.ndarray) -> None:
        """Write per-(row, trip) scalars ``values`` (float64, rows x trips) into every trip's destination lanes,
        converted to the destination dtype as the register operand is (numpy's rounding cast)."""
        plan = self.plans[0]
        target = _trip_grid(b.views[self.tensors[0].key], None, start, step, count, plan, True)
        shaped = values.reshape(values.shape + (1,) * (target.ndim - 2))
        with np.errstate(over="ignore"):
            if b.rows is None:
                target[...] = shaped
            else:
                target[b.rows] = shaped


def evaluator_for_base(kc, op) -> Callable:
    """b -> the operand's start (one value for every block) as a Python int, or a marker that is not one."""
    bexpr = kc.batch_base(op)
    if not bexpr.uniform:
        return lambda b: None
    return evaluator_for(bexpr)


def _trip_grid(view, rows, start: int, step: int, count: int, plan, writeable: bool) -> np.ndarray:
    """(rows, trips, *plan grid) elements of every trip of an operand (a strided view of the 2-D arena)."""
    shape, strides = ((plan.size,), (1,)) if plan.contiguous else plan.grid
    first = start + (plan.first if plan.contiguous else int(plan.rel[0]))
    isz = view.strides[1]
    grid = as_strided(view[:, first:], shape=(view.shape[0], count) + tuple(shape),
                      strides=(view.strides[0], step * isz) + tuple(s * isz for s in strides), writeable=writeable)
    return grid if rows is None else grid[rows]


def _shaped(result, trip_shape: tuple, rows: int):
    """Results (rows x trips x elements in plan order, or one value) in the destination grid's shape."""
    if np.ndim(result) == 0 or result.shape[1:] == trip_shape:
        return result
    return np.reshape(result, (rows,) + trip_shape)
