"""Loops of scalar instructions that run every trip at once: the per-row loops TBE schedules emit where the
scalar unit finishes a row reduction or feeds a per-row broadcast, e.g. (softmax's row max on a chip without a
float32 ``vcmax``)::

    for i: sload r_acc <- ub[a + 64 i]; (sload r_val <- ub[a + 64 i + j]; sset r_acc = max(r_acc, r_val))*7;
           sstore ub[c + i] <- r_acc
    for i: sload r_bc <- ub[c + i]; vector_dup(ub[d + 1024 i], r_bc)

A body qualifies when every instruction is ``sload`` / ``sset`` / ``sstore`` on float registers and float local
memory, or a ``vector_dup`` of a register; every register it reads was written earlier in the same trip (no value
flows from one trip to the next); every address is affine in the loop variables (checked on the expression, not by
sampling trips) and the same in every block; and
no trip can see another's memory (each written range is disjoint from every other access's range, and a written
address differs between trips).  Then running instruction k for all trips before instruction k+1 computes what
the trips compute one after the other.  Register values are float64 arrays (rows x trips) holding exactly the
Python floats the single-block scalar unit holds: ``+``, ``-`` and ``*`` of Python floats are IEEE float64
operations, ``max(a, b)`` is ``b if b > a else a`` (``np.where(b > a, b, a)``, NaN placement included), and
every conversion is the same numpy cast :func:`npusim.sim.dtypes.cast_scalar` makes.  Every trip's bounds and
alignment hold when the first and the last trip's do (affine starts); if any would fail, or a value is not what
the body expects, the loop declines before changing anything and runs trip by trip, so errors name the trip that
makes them.  Trace records are the trips' records in trip order; registers keep the last trip's values.
"""
from __future__ import annotations

from typing import Callable, Optional

import numpy as np

from npusim.errors.sim import SimulatorError
from npusim.sim.compiler import InstrNode
from npusim.sim.dtypes import np_dtype
from npusim.sim.expr import _affine
from npusim.sim.isa.batch_local import check_local
from npusim.sim.isa.plans import make_strided_plan
from npusim.sim.kernel import BinOp, Var

#: loops with fewer trips run trip by trip
MIN_TRIPS = 4
_ONE = make_strided_plan(1, 1, 0)


def _where_max(a, b):
    return np.where(b > a, b, a)


def _where_min(a, b):
    return np.where(b < a, b, a)


_OPS = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "max": _where_max, "min": _where_min}


def scalar_trip_runner(loop, slots) -> Optional[Callable]:
    """``run(b, low, high) -> bool`` for a LoopNode whose body is scalar work as above, else None."""
    if len(loop.body) < 2 or not all(isinstance(node, InstrNode) for node in loop.body):
        return None
    steps = []
    written: set = set()
    for node in loop.body:
        step = _step_of(node.instr, slots, written)
        if step is None:
            return None
        steps.append(step)
    records = [record for step in steps for record in step.records]
    return _Runner(tuple(steps), records, loop.slot, sorted(written)).run


class _Step:
    """One body instruction: ``ranges(b, low, count)`` -> [(scope, first byte, end byte, writes)] or None
    (a check failed), ``run(b, regs, low, count)`` does it for every trip."""

    records: tuple = ()


def _step_of(instr, slots, written: set) -> Optional[_Step]:
    trip = instr.extra.get("scalar_trip")
    if trip is not None:
        if np_dtype(trip.dtype).kind != "f":
            return None
        if trip.op is not None and _affine(trip.op.offset, slots) is None:
            return None                 # a start not affine in the loop's variables (or read from a register)
        if trip.kind == "sload":
            if not _local(trip.op):
                return None
            written.add(trip.slot)
            return _Load(trip)
        value = _compile_value(trip.value, slots, written)
        if value is None:
            return None
        if trip.kind == "sset":
            written.add(trip.slot)
            return _Set(trip, value)
        return _Store(trip, value) if _local(trip.op) else None
    vector = instr.extra.get("trips")
    if vector is None or not getattr(vector, "dup_only", False) or not isinstance(vector.scalar_expr, Var):
        return None
    value = _compile_value(vector.scalar_expr, slots, written)
    return None if value is None else _Dup(vector, value)


def _local(op) -> bool:
    return op is not None and not op.is_gm and op.hi is not None and op.dtype is not None and \
        np_dtype(op.dtype).kind == "f"


def _compile_value(expr, slots, written: set) -> Optional[Callable]:
    """regs -> float64 array (rows x trips) or a Python number, for expressions over registers written earlier in
    the trip, number constants and + - * max min; None for anything else."""
    if isinstance(expr, bool) or not isinstance(expr, (int, float, Var, BinOp)):
        return None
    if isinstance(expr, (int, float)):
        return lambda regs, v=float(expr): v
    if isinstance(expr, Var):
        slot = slots.slots.get(expr.name)
        if expr.name not in slots.registers or slot not in written:
            return None
        return lambda regs: regs[slot]
    op = _OPS.get(expr.op)
    lhs, rhs = _compile_value(expr.lhs, slots, written), _compile_value(expr.rhs, slots, written)
    if op is None or lhs is None or rhs is None:
        return None
    return lambda regs: op(lhs(regs), rhs(regs))


def _to_register(values, dtype: str, shape: tuple) -> np.ndarray:
    """float64 values rounded to ``dtype`` and back (as :func:`cast_scalar` converts), shaped rows x trips."""
    with np.errstate(over="ignore", invalid="ignore"):
        rounded = np.asarray(values, dtype=np.float64).astype(np_dtype(dtype)).astype(np.float64)
    return np.broadcast_to(rounded, shape) if rounded.shape != shape else rounded


class _Memory(_Step):
    def __init__(self, trip):
        self.trip, self.records = trip, (trip.record,)
        self.start = self.step = 0

    def ranges(self, b, slot: int, low: int, count: int) -> Optional[list]:
        trip, op = self.trip, self.trip.op
        b.env[slot] = low
        first = trip.start(b)
        b.env[slot] = low + 1
        second = trip.start(b)
        if type(first) is not int or type(second) is not int:
            return None
        step = second - first
        b.env[slot] = low + count - 1
        if trip.start(b) != first + (count - 1) * step:
            return None
        try:
            check_local(trip.site, op, first, _ONE, 0, False)
            check_local(trip.site, op, first + (count - 1) * step, _ONE, 0, False)
        except SimulatorError:
            return None
        self.start, self.step = first, step
        lo, hi = min(first, first + (count - 1) * step), max(first, first + (count - 1) * step)
        return [(op.key[0], lo * op.isz, (hi + 1) * op.isz, isinstance(self, _Store), step != 0 or count == 1)]

    def index(self, count: int) -> np.ndarray:
        return self.start + self.step * np.arange(count, dtype=np.int64)


class _Load(_Memory):
    def run(self, b, regs: dict, count: int) -> None:
        view = b.views[self.trip.op.key]
        index = self.index(count)
        values = view[:, index] if b.rows is None else view[b.rows[:, None], index]
        regs[self.trip.slot] = _to_register(values, self.trip.dtype, values.shape)


class _Store(_Memory):
    def __init__(self, trip, value: Callable):
        super().__init__(trip)
        self.value = value

    def run(self, b, regs: dict, count: int) -> None:
        shape = (b.active_count(), count)
        values = _to_register(self.value(regs), self.trip.dtype, shape)
        view = b.views[self.trip.op.key]
        index = self.index(count)
        with np.errstate(over="ignore"):
            if b.rows is None:
                view[:, index] = values
            else:
                view[b.rows[:, None], index] = values


class _Set(_Step):
    def __init__(self, trip, value: Callable):
        self.trip, self.value, self.records = trip, value, (trip.record,)

    def ranges(self, b, slot: int, low: int, count: int) -> list:
        return []

    def run(self, b, regs: dict, count: int) -> None:
        regs[self.trip.slot] = _to_register(self.value(regs), self.trip.dtype, (b.active_count(), count))


class _Dup(_Step):
    def __init__(self, vector, value: Callable):
        self.vector, self.value, self.records = vector, value, (vector.record,)
        self.span = None

    def ranges(self, b, slot: int, low: int, count: int) -> Optional[list]:
        self.span = self.vector.dup_span(b, low, count, slot)
        if self.span is None:
            return None
        start, step, lo, hi = self.span
        return [(self.vector.tensors[0].key[0], lo, hi, True, True)]

    def run(self, b, regs: dict, count: int) -> None:
        start, step, _, _ = self.span
        values = np.broadcast_to(np.asarray(self.value(regs), dtype=np.float64), (b.active_count(), count))
        self.vector.dup_write(b, start, step, count, values)


def _independent(ranges: list) -> bool:
    """No written range meets any other access's range in the same scope, and every write moves between trips."""
    for i, (scope, lo, hi, writes, moves) in enumerate(ranges):
        if not writes:
            continue
        if not moves:
            return False
        for j, (other_scope, other_lo, other_hi, _, _) in enumerate(ranges):
            if j != i and other_scope == scope and lo < other_hi and other_lo < hi:
                return False
    return True


class _Runner:
    def __init__(self, steps: tuple, records: list, slot: int, written: list):
        self.steps, self.records, self.slot, self.written = steps, records, slot, written

    def run(self, b, low: int, high: int) -> bool:
        count = high - low
        if count < MIN_TRIPS:
            return False
        ranges = []
        for step in self.steps:
            found = step.ranges(b, self.slot, low, count)
            if found is None:
                return False
            ranges.extend(found)
        if not _independent(ranges):
            return False
        regs: dict = {}
        for step in self.steps:
            step.run(b, regs, count)
        self._finish(b, regs, low, count)
        return True

    def _finish(self, b, regs: dict, low: int, count: int) -> None:
        b.env[self.slot] = low + count - 1
        for slot in self.written:
            last = np.asarray(regs[slot])[:, -1]
            values = np.empty(last.size, dtype=object)
            values[:] = last.tolist()
            b.set_register(slot, values)
        b.append_records(self.records, count)


__all__ = ["scalar_trip_runner"]
