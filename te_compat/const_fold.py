"""Constant folding of float16 / bfloat16 arithmetic, as CANN's TVM folds it.

CANN's TVM (0.6 based) folds arithmetic on two constants of any float dtype into one ``FloatImm`` holding the
exact (double) result: ``1 / tvm.const(0.5, "float16")`` is the constant 2.0, which ``vmuls`` accepts as its
scalar.  TVM 0.27 folds float32/float64 but leaves float16/bfloat16 arithmetic as an expression (``Div`` of two
``FloatImm``).  :func:`fold` turns such a constant expression back into one constant of its dtype, computed in
double precision as CANN's TVM does; anything that is not made only of constants is returned unchanged.
"""
from __future__ import annotations

import operator

import tvm
from tvm import tirx

from te_compat.objects import dtype_of

#: dtypes TVM 0.27 leaves unfolded (it folds float32/float64 and the integer types itself)
UNFOLDED_DTYPES = ("float16", "bfloat16")

_BINARY = {tirx.Add: operator.add, tirx.Sub: operator.sub, tirx.Mul: operator.mul, tirx.Div: operator.truediv,
           tirx.Min: min, tirx.Max: max}


def const_value(expr):
    """The Python number a constant expression evaluates to (double precision, as CANN's TVM folds), or None when
    ``expr`` is not made only of constants (or divides by zero)."""
    if isinstance(expr, (tirx.IntImm, tirx.FloatImm)):
        return expr.value
    if isinstance(expr, tirx.Cast):
        inner = const_value(expr.value)
        if inner is None:
            return None
        return float(inner) if dtype_of(expr).startswith(("float", "bfloat")) else int(inner)
    op = _BINARY.get(type(expr))
    if op is None:
        return None
    lhs, rhs = const_value(expr.a), const_value(expr.b)
    if lhs is None or rhs is None or (op is operator.truediv and rhs == 0):
        return None
    return op(lhs, rhs)


def fold(value):
    """``value`` with float16/bfloat16 constant arithmetic folded into one constant of its dtype (CANN's TVM);
    any other value unchanged."""
    if type(value) not in _BINARY and not isinstance(value, tirx.Cast):
        return value
    dtype = dtype_of(value)
    if dtype not in UNFOLDED_DTYPES:
        return value
    number = const_value(value)
    return value if number is None else tvm.tirx.const(float(number), dtype)


__all__ = ["UNFOLDED_DTYPES", "const_value", "fold"]
