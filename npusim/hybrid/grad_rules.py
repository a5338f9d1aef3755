"""Reverse-mode derivative rules for the TIR expressions hybrid kernels lower to (used by :mod:`.autodiff`).

:func:`backprop` walks one stored value with its adjoint ``g`` and returns, for every tensor element the value
reads, the contribution ``g * d value / d element``.  Gradients are computed in the *gradient dtype* of the values
involved: float32 for float16 (as a float16 kernel's values are rounded, but their derivatives accumulate without
it), the value's own dtype otherwise.

What is differentiable: + - * /, min / max, select / if_then_else (through the branch taken), casts between float
types, and the math calls exp, log, sqrt, rsqrt, tanh, erf, sin, cos, atan, atan2, pow and fabs, fmod; floor, ceil,
trunc, round and nearbyint have derivative 0 (where it exists).  Integer and bool values carry no gradient
(comparisons, bit operations, index arithmetic).  Ties of min/max and abs at 0 follow fixed conventions: the
first operand of min/max takes the whole gradient, abs'(0) = 0.  Any other float-valued operation raises
:class:`NotDifferentiable` naming it.
"""
from __future__ import annotations

import math

import tvm
from tvm import tirx

from npusim.hybrid.dtypes import is_float

#: the class of tirx.BufferLoad(...) nodes (tirx.BufferLoad itself is a constructor function)
LOAD = tvm.ir.expr.TensorLoad
#: call ops whose derivative is zero wherever it exists
ZERO_DERIVATIVE_CALLS = frozenset({"tirx.floor", "tirx.ceil", "tirx.trunc", "tirx.round", "tirx.nearbyint"})
_BINARY = (tirx.Add, tirx.Sub, tirx.Mul, tirx.Div, tirx.Min, tirx.Max)
_NO_GRADIENT = (tirx.IntImm, tirx.FloatImm, tirx.Var, tirx.EQ, tirx.NE, tirx.LT, tirx.LE, tirx.GT, tirx.GE,
                tirx.And, tirx.Or, tirx.Not, tirx.FloorDiv, tirx.FloorMod, tirx.Mod)


class NotDifferentiable(Exception):
    """An operation in a kernel has no derivative rule; the message says which."""


def dtype_of(expr) -> str:
    return str(expr.ty)


def grad_dtype(dtype: str) -> str:
    """The dtype gradients of ``dtype`` values are computed in."""
    return "float32" if dtype == "float16" else dtype


def as_grad(expr, g):
    """``expr`` converted to the dtype of the gradient ``g``."""
    return expr if dtype_of(expr) == dtype_of(g) else tirx.Cast(dtype_of(g), expr)


def constant(value: float, like):
    return tirx.const(value, dtype_of(like))


def backprop(expr, g) -> list:
    """[(BufferLoad, contribution)] for the tensor elements ``expr`` reads; ``g``: d(result)/d(expr), in the
    gradient dtype of ``expr``."""
    if not is_float(dtype_of(expr)) or isinstance(expr, _NO_GRADIENT):
        return []
    if isinstance(expr, LOAD):
        return [(expr, g)]
    if isinstance(expr, _BINARY):
        return _binary(expr, g)
    if isinstance(expr, tirx.Cast):
        source = expr.value
        if not is_float(dtype_of(source)):
            return []
        return backprop(source, tirx.Cast(grad_dtype(dtype_of(source)), g)
                        if grad_dtype(dtype_of(source)) != dtype_of(g) else g)
    if isinstance(expr, tirx.Select):
        return _select(expr.condition, expr.true_value, expr.false_value, g)
    if isinstance(expr, tvm.ir.Call):
        return _call(expr, g)
    raise NotDifferentiable(f"the operation {type(expr).__name__} ({expr})")


def _binary(expr, g) -> list:
    a, b = expr.a, expr.b
    zero = constant(0.0, g)
    if isinstance(expr, tirx.Add):
        return backprop(a, g) + backprop(b, g)
    if isinstance(expr, tirx.Sub):
        return backprop(a, g) + backprop(b, tirx.Sub(zero, g))
    if isinstance(expr, tirx.Mul):
        return backprop(a, g * as_grad(b, g)) + backprop(b, g * as_grad(a, g))
    if isinstance(expr, tirx.Div):
        bg = as_grad(b, g)
        return backprop(a, g / bg) + backprop(b, tirx.Sub(zero, g * as_grad(a, g)) / (bg * bg))
    first_wins = tirx.LE(a, b) if isinstance(expr, tirx.Min) else tirx.GE(a, b)
    return backprop(a, tirx.Select(first_wins, g, zero)) + backprop(b, tirx.Select(first_wins, zero, g))


def _select(condition, true_value, false_value, g) -> list:
    zero = constant(0.0, g)
    return (backprop(true_value, tirx.Select(condition, g, zero))
            + backprop(false_value, tirx.Select(condition, zero, g)))


def _call(expr, g) -> list:
    name = expr.op.name
    args = list(expr.args)
    if name == "tirx.if_then_else":
        return _select(args[0], args[1], args[2], g)
    if name in ZERO_DERIVATIVE_CALLS:
        return []
    if name == "tirx.call_pure_extern" and str(args[0].value) in ("fmod", "fmodf"):
        a, b = args[1], args[2]
        quotient = tirx.trunc(as_grad(a, g) / as_grad(b, g))
        return backprop(a, g) + backprop(b, tirx.Sub(constant(0.0, g), g * quotient))
    if name in ("tirx.pow", "tirx.atan2"):
        return _two_argument_call(name, args[0], args[1], g)
    rule = _UNARY_RULES.get(name)
    if rule is None or len(args) != 1:
        raise NotDifferentiable(f"the call {name.replace('tirx.', '')}() ({expr})")
    x = as_grad(args[0], g)
    return backprop(args[0], g * rule(x, expr, g))


def _two_argument_call(name, a, b, g) -> list:
    x, y = as_grad(a, g), as_grad(b, g)
    if name == "tirx.pow":
        da = y * tirx.power(x, y - constant(1.0, g))
        db = tirx.power(x, y) * tirx.log(x)
        return backprop(a, g * da) + backprop(b, g * db)
    norm = x * x + y * y   # atan2(a, b): d/da = b / (a² + b²), d/db = -a / (a² + b²)
    return backprop(a, g * y / norm) + backprop(b, tirx.Sub(constant(0.0, g), g * x / norm))


def _abs_derivative(x, _expr, g):
    zero = constant(0.0, g)
    return tirx.Select(tirx.GT(x, zero), constant(1.0, g), tirx.Select(tirx.LT(x, zero), constant(-1.0, g), zero))


#: d f(x) / dx for one-argument calls, as a function of x (in the gradient dtype), the call and g
_UNARY_RULES = {
    "tirx.exp": lambda x, e, g: tirx.exp(x),
    "tirx.log": lambda x, e, g: constant(1.0, g) / x,
    "tirx.sqrt": lambda x, e, g: constant(0.5, g) / tirx.sqrt(x),
    "tirx.rsqrt": lambda x, e, g: constant(-0.5, g) * tirx.rsqrt(x) / x,
    "tirx.tanh": lambda x, e, g: constant(1.0, g) - tirx.tanh(x) * tirx.tanh(x),
    "tirx.erf": lambda x, e, g: constant(2.0 / math.sqrt(math.pi), g) * tirx.exp(tirx.Sub(constant(0.0, g), x * x)),
    "tirx.sin": lambda x, e, g: tirx.cos(x),
    "tirx.cos": lambda x, e, g: tirx.Sub(constant(0.0, g), tirx.sin(x)),
    "tirx.atan": lambda x, e, g: constant(1.0, g) / (constant(1.0, g) + x * x),
    "tirx.fabs": _abs_derivative,
    "tirx.abs": _abs_derivative,
}
