"""Kernel expressions evaluated for a lockstep batch of blocks (:mod:`npusim.sim.lockstep`).

In a batch every block runs the same instruction at the same time, so an expression has one value per block.
Compiling sorts expressions by how that value varies, so the common cases cost what a single block's do:

* ``const``: a compile-time constant;
* ``uniform``: no ``block_idx`` and no scalar register: one Python value for every block (the single-block
  closure of :func:`npusim.sim.expr.compile_expr`, run on the batch's environment);
* ``affine``: ``s + k * block_idx`` with ``s`` uniform: the uniform part plus ``k`` times the batch's block
  indices (int64);
* ``general``: anything else (registers, non-affine uses of ``block_idx``): evaluated with exactly the Python
  operations a single block uses, element by element on object arrays (``np.frompyfunc``), so every value, every
  rounding and every error is the one the per-block evaluation gives.

A batch environment holds, per slot, a Python value (the same for every block) or an object array with one
value per row of the batch (registers loaded per block); ``block_idx`` is read through the batch context
(``b.offsets(k)``: ``k`` times the active rows' block indices; ``b.active_bids_obj()``: them as Python ints).
Arrays always hold one value per *active* row of the batch (registers keep a value for every row; reading one
selects the active rows).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional

import numpy as np

from npusim.errors.sim import InvalidOperandError
from npusim.sim.dtypes import cast_scalar
from npusim.sim.expr import _BIN_FUNCS, _UN_FUNCS, UNSET, Const, SlotMap, _affine, _affine_closure, _safe, \
    compile_expr
from npusim.sim.kernel import BLOCK_IDX, BinOp, Cast, UnOp, Var

CONST, UNIFORM, AFFINE, GENERAL = "const", "uniform", "affine", "general"
#: affine coefficients and constants beyond these are evaluated the general way (no int64 overflow possible)
_COEF_LIMIT = 1 << 30
_CONST_LIMIT = 1 << 60


@dataclass(frozen=True)
class BatchExpr:
    """A compiled expression for a batch: ``kind`` and ``value`` (const), ``fn`` (uniform: env -> value;
    affine: env -> uniform part; general: b -> value or object array), ``coef`` (affine: the block_idx factor)."""

    kind: str
    value: object = None
    fn: Optional[Callable] = None
    coef: int = 0

    @property
    def uniform(self) -> bool:
        """The same value for every block of a batch."""
        return self.kind in (CONST, UNIFORM)


def free_vars(expr) -> set:
    """Names of the variables ``expr`` reads."""
    if isinstance(expr, Var):
        return {expr.name}
    if isinstance(expr, BinOp):
        return free_vars(expr.lhs) | free_vars(expr.rhs)
    if isinstance(expr, (UnOp, Cast)):
        return free_vars(expr.arg)
    return set()


def compile_batch_expr(expr, slots: SlotMap) -> BatchExpr:
    """Compile ``expr`` for batches (the expression already compiled for single blocks, so it is well formed)."""
    names = free_vars(expr)
    if BLOCK_IDX not in names and not names & slots.registers:
        compiled = compile_expr(expr, slots)
        if isinstance(compiled, Const):
            return BatchExpr(CONST, value=compiled.value)
        return BatchExpr(UNIFORM, fn=compiled)
    affine = None if names & slots.registers else _affine(expr, slots)
    if affine is not None:
        const, terms = affine
        terms = dict(terms)
        coef = terms.pop(slots.slot(BLOCK_IDX), 0)
        if abs(coef) < _COEF_LIMIT and abs(const) < _CONST_LIMIT and all(abs(k) < _COEF_LIMIT
                                                                          for k in terms.values()):
            if not terms:
                fn = lambda env, c=const: c  # noqa: E731
            else:
                fn = _affine_closure(const, terms)
            return BatchExpr(AFFINE, fn=fn, coef=coef) if coef else BatchExpr(UNIFORM, fn=fn)
    return BatchExpr(GENERAL, fn=_general(expr, slots))


def evaluate(bexpr: BatchExpr, b):
    """The expression's value in batch ``b``: a Python value (the same for every block), an int64 array (affine)
    or an object array (general), arrays with one entry per row of the batch."""
    kind = bexpr.kind
    if kind == CONST:
        return bexpr.value
    if kind == UNIFORM:
        return bexpr.fn(b.env)
    if kind == AFFINE:
        return bexpr.fn(b.env) + b.offsets(bexpr.coef)
    return bexpr.fn(b)


def evaluator_for(bexpr: BatchExpr) -> Callable:
    """A closure b -> :func:`evaluate` (b) without the dispatch on ``kind``."""
    kind = bexpr.kind
    if kind == CONST:
        value = bexpr.value
        return lambda b: value
    if kind == UNIFORM:
        fn = bexpr.fn
        return lambda b: fn(b.env)
    if kind == AFFINE:
        fn, coef = bexpr.fn, bexpr.coef
        return lambda b: fn(b.env) + b.offsets(coef)
    return bexpr.fn


def _lift_batch(func: Callable, nargs: int) -> Callable:
    """``func`` applied to Python values, or element by element (same Python function) when an argument is an
    object array."""
    ufunc = np.frompyfunc(func, nargs, 1)

    def apply(*args):
        for arg in args:
            if isinstance(arg, np.ndarray):
                return ufunc(*args)
        return func(*args)
    return apply


def _general(expr, slots: SlotMap) -> Callable:
    if isinstance(expr, (bool, int, float)):
        return lambda b, v=expr: v
    if isinstance(expr, Var):
        return _var(expr.name, slots)
    if isinstance(expr, BinOp):
        if expr.op not in _BIN_FUNCS:
            raise InvalidOperandError(f"unknown binary operator {expr.op!r}")
        apply = _lift_batch(_safe(_BIN_FUNCS[expr.op], expr.op), 2)
        fa, fb = _general(expr.lhs, slots), _general(expr.rhs, slots)
        return lambda b: apply(fa(b), fb(b))
    if isinstance(expr, UnOp):
        if expr.op not in _UN_FUNCS:
            raise InvalidOperandError(f"unknown unary operator {expr.op!r}")
        apply = _lift_batch(_safe(_UN_FUNCS[expr.op], expr.op), 1)
        fa = _general(expr.arg, slots)
        return lambda b: apply(fa(b))
    if isinstance(expr, Cast):
        dtype = expr.dtype
        apply = _lift_batch(_safe(lambda v: cast_scalar(v, dtype), f"cast to {dtype}"), 1)
        fa = _general(expr.arg, slots)
        return lambda b: apply(fa(b))
    raise InvalidOperandError(f"not a scalar expression: {expr!r}")


def _var(name: str, slots: SlotMap) -> Callable:
    if name == BLOCK_IDX:
        return lambda b: b.active_bids_obj()
    slot = slots.slot(name)
    if name not in slots.registers:
        return lambda b: b.env[slot]

    def read_register(b):
        value = b.env[slot]
        if isinstance(value, np.ndarray):
            value = b.select(value)
        if value is UNSET or (isinstance(value, np.ndarray) and any(v is UNSET for v in value)):
            raise InvalidOperandError(f"found uninitialized Scalar {name!r} (read before any write)")
        return value
    return read_register


def as_int_array(value, n: int) -> np.ndarray:
    """An int64 array of ``n`` entries from an expression value (Python int, int64 array or object array of
    ints); InvalidOperandError when a value is not an int."""
    if isinstance(value, np.ndarray):
        if value.dtype == object:
            if not all(isinstance(v, int) and not isinstance(v, bool) for v in value):
                raise InvalidOperandError("a per-block value used as an integer is not an int")
            return value.astype(np.int64)
        return value
    if not isinstance(value, int) or isinstance(value, bool):
        raise InvalidOperandError(f"value {value!r} used as an integer is not an int")
    return np.full(n, value, dtype=np.int64)


def uniform_value(value) -> tuple:
    """(True, v) when ``value`` is one Python value v or an array whose entries are all v (same type), else
    (False, None)."""
    if not isinstance(value, np.ndarray):
        return True, value
    first = value[0]
    if value.dtype == object:
        if all(type(v) is type(first) and v == first for v in value):
            return True, first
        return False, None
    if bool((value == first).all()):
        return True, first.item()
    return False, None


def scaled(bexpr: BatchExpr, unit: int, lo: int) -> BatchExpr:
    """``lo + value * unit`` of an expression, of the same kind."""
    if unit == 1 and lo == 0:
        return bexpr
    kind = bexpr.kind
    if kind == CONST:
        return BatchExpr(CONST, value=lo + bexpr.value * unit)
    fn = bexpr.fn
    if kind == GENERAL:
        return BatchExpr(GENERAL, fn=lambda b: lo + fn(b) * unit)
    return BatchExpr(kind, fn=lambda env: lo + fn(env) * unit, coef=bexpr.coef * unit)
