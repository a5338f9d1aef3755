"""Lockstep-batch forms of the scalar-unit instructions ``sset``, ``sload``, ``sstore``.

A register has one Python value for every block of a batch, or an object array with one value per row (values
loaded per block).  Conversions to the register's dtype are the single-block :func:`cast_scalar`, applied element
by element, or as one numpy cast where that gives the same values (floats: float64 -> dtype -> float64; integers
read from integer memory: a wrapping cast).
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from npusim.errors.sim import InvalidOperandError
from npusim.sim.batch_expr import as_int_array, compile_batch_expr, evaluator_for
from npusim.sim.checks import check_access
from npusim.sim.dtypes import cast_scalar, np_dtype
from npusim.sim.lockstep.gm_log import READ, WRITE


def gm_index_of(op):
    """The GM parameter index of an operand, None for local operands."""
    return op.key[1] if op.is_gm else None


def object_array(values: list) -> np.ndarray:
    """A 1-D object array holding exactly ``values`` (numbers stay Python objects)."""
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out


def cast_values(values: np.ndarray, dtype: str) -> np.ndarray:
    """:func:`cast_scalar` of every entry of an array (object or numeric), as an object array."""
    npd = np_dtype(dtype)
    if values.dtype == object:
        if npd.kind == "f" and all(type(v) is float for v in values):
            floats = np.asarray(values, dtype=np.float64).astype(npd).astype(np.float64)
            return object_array(floats.tolist())
        return object_array([cast_scalar(v, dtype) for v in values])
    return cast_memory(values, dtype)


def cast_memory(values: np.ndarray, dtype: str) -> np.ndarray:
    """:func:`cast_scalar` of ``.item()`` of every element of a numeric array, as an object array."""
    npd = np_dtype(dtype)
    kind = values.dtype.kind
    if npd.kind == "f":
        with np.errstate(over="ignore", invalid="ignore"):
            return object_array(values.astype(np.float64).astype(npd).astype(np.float64).tolist())
    if npd.kind in "iu" and kind in "iub":
        return object_array(values.astype(npd).tolist())
    return object_array([cast_scalar(v, dtype) for v in values.tolist()])


def _rows_index(b, base) -> tuple:
    """(row selector, element index) of a one-element access at ``base`` (a value or a per-row array)."""
    rows = b.rows
    if not isinstance(base, np.ndarray):
        return (slice(None) if rows is None else rows), base
    index = as_int_array(base, 0)
    return (np.arange(b.n) if rows is None else rows), index


def _bounds(site, op, index, hi) -> None:
    low = int(np.min(index)) if isinstance(index, np.ndarray) else index
    high = int(np.max(index)) if isinstance(index, np.ndarray) else index
    if low < op.lo or high >= hi:
        bad = low if low < op.lo else high
        check_access(site, op.role, op.buffer, bad, bad, op.lo, hi)


def sset_batch(site, value_expr, slots, slot: int, dtype: str, record) -> Callable:
    evaluate = evaluator_for(compile_batch_expr(value_expr, slots))

    def batch(b):
        value = evaluate(b)
        try:
            if isinstance(value, np.ndarray):
                value = cast_values(value, dtype)
            else:
                value = cast_scalar(value, dtype)
        except (TypeError, ValueError, OverflowError) as exc:
            raise site.error(InvalidOperandError, f"cannot set {dtype} register: {exc}") from None
        b.set_register(slot, value)
        b.append(record)
    return batch


def sload_batch(kc, src, slot: int, dtype: str, record) -> Callable:
    site = kc.site
    evaluate = evaluator_for(kc.batch_base(src))
    index_of = gm_index_of(src)

    def batch(b):
        rows, index = _rows_index(b, evaluate(b))
        hi = src.hi if src.hi is not None else b.gm_hi[src.key]
        _bounds(site, src, index, hi)
        view = b.views[src.key]
        if index_of is None:
            values = view[rows, index]
        else:
            _log(b, index_of, src.isz, index, READ)
            values = view[index]
            if not isinstance(index, np.ndarray):
                b.set_register(slot, cast_scalar(values.item(), dtype))
                b.append(record)
                return
        b.set_register(slot, cast_memory(np.asarray(values).reshape(-1), dtype))
        b.append(record)
    return batch


def sstore_batch(kc, dst, value_expr, record) -> Callable:
    site = kc.site
    evaluate = evaluator_for(kc.batch_base(dst))
    value_of = evaluator_for(compile_batch_expr(value_expr, kc.slots))
    index_of = gm_index_of(dst)
    dtype = dst.dtype

    def batch(b):
        rows, index = _rows_index(b, evaluate(b))
        hi = dst.hi if dst.hi is not None else b.gm_hi[dst.key]
        _bounds(site, dst, index, hi)
        value = value_of(b)
        if isinstance(value, np.ndarray):
            value = np.array(cast_values(value, dtype).tolist())
        else:
            value = cast_scalar(value, dtype)
        view = b.views[dst.key]
        if index_of is None:
            view[rows, index] = value
        else:
            target = index if isinstance(index, np.ndarray) else np.full(b.active_count(), index)
            _log(b, index_of, dst.isz, target, WRITE)
            b.gm.save(index_of, view, target)
            values = value if isinstance(value, np.ndarray) else [value] * target.size
            for position, item in zip(target.tolist(), values):     # in block order where blocks meet
                view[position] = item
        b.append(record)
    return batch


def _log(b, param_index: int, isz: int, index, kind: int) -> None:
    if param_index in b.gm.tracked:
        lo = np.asarray(index, dtype=np.int64) * isz
        b.gm.log(param_index, b.active_bids(), lo, lo + isz, kind)
