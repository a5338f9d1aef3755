"""The batched program of a compiled kernel: its tree (:class:`~npusim.sim.compiler.LoopNode`, ``IfNode``,
``InstrNode``) turned into closures over a :class:`~npusim.sim.lockstep.context.BatchContext`.

Instructions run their batched form; instructions without one that touch only local memory run block by block
inside the batch (:func:`_per_row`); a kernel with any other instruction has no batched program.  A loop whose
bounds are the same in every active row runs once for all of them; otherwise it runs from the lowest to the
highest bound with, at each trip, only the rows whose own range contains it.  A branch whose condition is the
same in every active row runs once; otherwise its two bodies run one after the other, each on its rows.
"""
from __future__ import annotations

import operator
from typing import Callable, Optional

import numpy as np

from npusim.sim.batch_expr import AFFINE, CONST, GENERAL, compile_batch_expr, evaluator_for
from npusim.sim.compiler import MAX_LOOP_TRIPS, IfNode, InstrNode, LoopNode
from npusim.sim.kernel import BinOp
from npusim.sim.lockstep.context import BatchFallback
from npusim.sim.lockstep.chains import fuse_body
from npusim.sim.lockstep.trips import trip_runner

_MONOTONE = {"lt": operator.lt, "le": operator.le, "gt": operator.gt, "ge": operator.ge}


class Unbatchable(Exception):
    """Raised while building: the kernel has an instruction that cannot run in a batch."""


def build_program(compiled) -> Optional[tuple]:
    """The batched program (a tuple of closures b -> None), or None when the kernel cannot run in a batch."""
    try:
        return _body(compiled.tree, compiled.slots)
    except Unbatchable:
        return None


def _body(nodes, slots) -> tuple:
    out = []
    for node in nodes:
        if isinstance(node, InstrNode):
            out.append(_instr(node.instr, slots))
        elif isinstance(node, LoopNode):
            out.append(_loop(node, slots))
        elif isinstance(node, IfNode):
            out.append(_branch(node, slots))
    return tuple(fuse_body(nodes, out))


def _instr(instr, slots) -> Callable:
    if instr.batch is not None:
        return instr.batch
    if instr.local_only:
        return _per_row(instr.run, sorted(slots.slots[name] for name in slots.registers))
    raise Unbatchable(instr.static.opcode)


def _check_bounds(low, high) -> None:
    if not isinstance(low, int) or not isinstance(high, int) or isinstance(low, bool) or \
            not 0 <= low < MAX_LOOP_TRIPS or not high < MAX_LOOP_TRIPS:
        raise BatchFallback("loop bounds out of range")


def _loop(node: LoopNode, slots) -> Callable:
    begin = evaluator_for(compile_batch_expr(node.begin, slots))
    end = evaluator_for(compile_batch_expr(node.end, slots))
    body = _body(node.body, slots)
    slot = node.slot
    trips = trip_runner(node, slots, body)

    def run_loop(b):
        low, high = begin(b), end(b)
        if isinstance(low, np.ndarray) or isinstance(high, np.ndarray):
            _varying_loop(b, low, high, slot, body)
            return
        _check_bounds(low, high)
        if trips is not None and trips(b, low, high):
            return
        env = b.env
        for value in range(low, high):
            env[slot] = value
            for stmt in body:
                stmt(b)
    return run_loop


def _varying_loop(b, low, high, slot: int, body: tuple) -> None:
    count = b.active_count()
    lows = [v for v in _row_list(b, low, count)]
    highs = [v for v in _row_list(b, high, count)]
    for lo, hi in zip(lows, highs):
        _check_bounds(lo, hi)
    lo_arr, hi_arr = np.array(lows, dtype=np.int64), np.array(highs, dtype=np.int64)
    rows = np.arange(b.n) if b.rows is None else b.rows
    env = b.env
    for value in range(int(lo_arr.min()), int(hi_arr.max())):
        active = (lo_arr <= value) & (value < hi_arr)
        if not active.any():
            continue
        env[slot] = value
        everyone = bool(active.all())
        if not everyone:
            b.enter(rows[active])
        for stmt in body:
            stmt(b)
        if not everyone:
            b.leave()
    last = {hi - 1 if hi > lo else None for lo, hi in zip(lows, highs)}
    if len(last) > 1:
        env[slot] = _SPLIT_LOOP_VAR


class _SplitLoopVar:
    """The value of a loop variable after a loop that ended at different trips in different rows: reading it
    makes the batch give up (the blocks would disagree on a value meant to be shared)."""

    def _fail(self, *args):
        raise BatchFallback("a loop variable read after a loop whose trip counts differed between blocks")

    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __index__ = __int__ = __bool__ = _fail
    __floordiv__ = __mod__ = __lt__ = __le__ = __gt__ = __ge__ = __eq__ = __hash__ = _fail


_SPLIT_LOOP_VAR = _SplitLoopVar()


def _row_list(b, value, count: int) -> list:
    if not isinstance(value, np.ndarray):
        return [value] * count
    return value.tolist()


def _branch(node: IfNode, slots) -> Callable:
    cond = _condition(node.cond, slots)
    then_body, else_body = _body(node.then_body, slots), _body(node.else_body, slots)

    def run_if(b):
        value = cond(b)
        if not isinstance(value, np.ndarray):
            for stmt in (then_body if value else else_body):
                stmt(b)
            return
        rows = np.arange(b.n) if b.rows is None else b.rows
        taken = value
        for chosen, body in ((rows[taken], then_body), (rows[~taken], else_body)):
            if chosen.size == rows.size:
                for stmt in body:
                    stmt(b)
            elif chosen.size:
                b.enter(chosen)
                for stmt in body:
                    stmt(b)
                b.leave()
    return run_if


def _condition(expr, slots) -> Callable:
    """b -> a Python truth value (the same in every active row) or a bool array (one per active row, or per
    row of the batch)."""
    bexpr = compile_batch_expr(expr, slots)
    if bexpr.kind == CONST:
        value = bool(bexpr.value)
        return lambda b: value
    if bexpr.uniform:
        fn = bexpr.fn
        return lambda b: bool(fn(b.env))
    fast = _monotone(expr, slots)
    general = evaluator_for(bexpr)

    def slow(b):
        value = general(b)
        if not isinstance(value, np.ndarray):
            return bool(value)
        if value.dtype == object:
            return np.array([bool(v) for v in value], dtype=bool)
        return value != 0
    if fast is None:
        return slow

    def condition(b):
        found = fast(b)
        return slow(b) if found is None else found
    return condition


def _monotone(expr, slots) -> Optional[Callable]:
    """For ``lhs <cmp> rhs`` with lhs - rhs affine in block_idx: b -> the truth value when it is the same at the
    lowest and highest active block (then it is the same for all), None otherwise."""
    if not isinstance(expr, BinOp) or expr.op not in _MONOTONE:
        return None
    left, right = compile_batch_expr(expr.lhs, slots), compile_batch_expr(expr.rhs, slots)
    if GENERAL in (left.kind, right.kind) or AFFINE not in (left.kind, right.kind):
        return None
    compare = _MONOTONE[expr.op]
    lf, rf = _uniform_part(left), _uniform_part(right)
    coef = (left.coef if left.kind == AFFINE else 0) - (right.coef if right.kind == AFFINE else 0)

    def fast(b):
        env = b.env
        diff = lf(env) - rf(env)
        if type(diff) is not int:
            return None
        bids = b.active_bids()
        first, last = compare(diff + coef * int(bids[0]), 0), compare(diff + coef * int(bids[-1]), 0)
        return first if first == last else None
    return fast


def _uniform_part(bexpr) -> Callable:
    """env -> the block-independent part of a const / uniform / affine expression."""
    if bexpr.kind == CONST:
        value = bexpr.value
        return lambda env: value
    return bexpr.fn


def _per_row(run: Callable, register_slots: list) -> Callable:
    """A local-only instruction without a batched form: its single-block ``run`` on every active row."""
    def batch(b):
        b.flush()
        contexts = b.row_contexts_for()
        rows = range(b.n) if b.rows is None else b.rows.tolist()
        env = b.env
        changed = {}
        for r in rows:
            ctx = contexts[r]
            ctx.env = row_env = [v[r] if isinstance(v, np.ndarray) else v for v in env]
            ctx.append, ctx.touch = b.lists[r].append, b.spans[r].append
            run(ctx)
            for slot in register_slots:
                if row_env[slot] is not _env_value(env[slot], r):
                    changed.setdefault(slot, {})[r] = row_env[slot]
        for slot, values in changed.items():
            _merge_register(b, slot, values, rows)
    return batch


def _env_value(value, r: int):
    return value[r] if isinstance(value, np.ndarray) else value


def _merge_register(b, slot: int, values: dict, rows) -> None:
    current = b.env[slot]
    full = np.empty(b.n, dtype=object)
    full[:] = [_env_value(current, r) for r in range(b.n)]
    for r, value in values.items():
        full[r] = value
    b.env[slot] = full

