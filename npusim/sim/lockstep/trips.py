"""Loops of a batched program that run many trips at once: a loop around one ``data_move`` into local memory
(``for i: data_move(ub[i*k], gm[s + i*m])``), or around a branch with such a move on one side and a condition
affine in the loop variable (``for i: if s + i*m > n: <tail handling> else: data_move(...)``), as TBE schedules
emit for row gathers.

The trips of a run where every active row takes the move are one copy (:class:`npusim.sim.isa.batch_trips.
TripMove` says when that is exact); the other trips run one by one, in trip order, through the ordinary batched
branch.  The condition of every row and trip is computed at once: ``lhs - rhs`` is an integer affine function of
the trip.  Anything unexpected (a non-integer value, a move that cannot run as one copy) runs the loop trip by
trip.
"""
from __future__ import annotations

import operator
from typing import Callable, Optional

import numpy as np

from npusim.sim.batch_expr import compile_batch_expr, evaluator_for
from npusim.sim.compiler import IfNode, InstrNode
from npusim.sim.expr import _affine
from npusim.sim.kernel import BinOp
from npusim.sim.lockstep.scalar_trips import scalar_trip_runner

#: loops with fewer trips run trip by trip
MIN_TRIPS = 4
_COMPARE = {"lt": operator.lt, "le": operator.le, "gt": operator.gt, "ge": operator.ge, "eq": operator.eq,
            "ne": operator.ne}


def _mover(node, slot: int) -> Optional[Callable]:
    if not isinstance(node, InstrNode):
        return None
    trips = node.instr.extra.get("trips")
    return None if trips is None else trips.runner(slot)


def trip_runner(loop, slots, body: tuple) -> Optional[Callable]:
    """``run(b, low, high) -> bool`` for a LoopNode (``body``: its batched closures), or None when the loop's
    body is not one of the shapes above.  ``run`` returns False, having done nothing, when it declines."""
    if len(loop.body) != 1:
        return scalar_trip_runner(loop, slots)
    node, slot = loop.body[0], loop.slot
    move = _mover(node, slot)
    if move is not None:
        return lambda b, low, high: high - low >= MIN_TRIPS and move(b, low, high - low)
    if not isinstance(node, IfNode) or not isinstance(node.cond, BinOp) or node.cond.op not in _COMPARE:
        return None
    then_move = _mover(node.then_body[0], slot) if len(node.then_body) == 1 else None
    else_move = _mover(node.else_body[0], slot) if len(node.else_body) == 1 else None
    move = then_move or else_move
    if move is None:
        return None
    diff = BinOp("sub", node.cond.lhs, node.cond.rhs)
    affine = _affine(diff, slots)
    if affine is None:
        return None
    step = affine[1].get(slot, 0)
    at_low = evaluator_for(compile_batch_expr(diff, slots))
    compare, move_when = _COMPARE[node.cond.op], then_move is not None
    branch = body[0]

    def run(b, low: int, high: int) -> bool:
        count = high - low
        if count < MIN_TRIPS:
            return False
        b.env[slot] = low
        first = at_low(b)
        if isinstance(first, np.ndarray) and first.dtype != np.int64 or \
                not isinstance(first, np.ndarray) and type(first) is not int:
            return False
        values = np.asarray(first, dtype=np.int64).reshape(-1, 1) + step * np.arange(count, dtype=np.int64)
        moving = (compare(values, 0) == move_when).all(axis=0)
        _run_segments(b, low, moving, move, branch, slot)
        return True
    return run


def _run_segments(b, low: int, moving: np.ndarray, move: Callable, branch: Callable, slot: int) -> None:
    """Trips in order: runs where every row moves as one copy, the others through the batched branch."""
    edges = np.flatnonzero(np.diff(moving.astype(np.int8))) + 1
    bounds = [0, *edges.tolist(), moving.size]
    env = b.env
    for start, stop in zip(bounds[:-1], bounds[1:]):
        if moving[start] and move(b, low + start, stop - start):
            continue
        for value in range(low + start, low + stop):
            env[slot] = value
            branch(b)
