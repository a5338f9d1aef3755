"""TIR lowering of the DSL's math, cast and builtin intrinsics (rows of :mod:`npusim.hybrid.intrinsics`).

float16 math is computed in float32 and rounded back to float16 (what numpy does for half floats, and LLVM
has no half versions of most of these).  Integer arguments of float functions are converted to float32
(float64 for 64-bit ints).  Calls whose arguments are all known at compile time are evaluated with the
numpy row and give a Python number.
"""
from __future__ import annotations

import ast

import numpy as np
from tvm import tirx

from npusim.errors import HybridSyntaxError, HybridValueError
from npusim.hybrid import intrinsics as intr
from npusim.hybrid.dtypes import float_type_for, is_float, result_type
from npusim.hybrid.values import Buf, Dyn, const, is_static_scalar, static_int, to_expr, type_of

# float → float functions with a direct TIR op
_FLOAT_OPS = {
    "sqrt": tirx.sqrt, "log": tirx.log, "exp": tirx.exp, "tanh": tirx.tanh, "rsqrt": tirx.rsqrt,
    "erf": tirx.erf, "sin": tirx.sin, "cos": tirx.cos, "atan": tirx.atan,
}
# rounding functions: identity on integers, dtype-preserving on floats
_ROUNDING_OPS = {"floor": tirx.floor, "ceil": tirx.ceil, "trunc": tirx.trunc, "round": tirx.round}
_CLASSIFY_OPS = {"isnan": (tirx.isnan, False), "isinf": (tirx.isinf, False), "isfinite": (tirx.isfinite, True)}


def lower_call(lowering, node):
    """Lower a call expression; buffers, loops and scopes are statements and are rejected here."""
    name = node.func.id if isinstance(node.func, ast.Name) else ast.unparse(node.func)
    row = intr.intrinsic(name)
    if row is None:
        lowering.fail(HybridSyntaxError, f"function call id [{name}] not in intrinsics list", node)
    if row.kind in (intr.BUFFER, intr.LOOP, intr.SCOPE, intr.KERNEL):
        lowering.fail(HybridSyntaxError, f"'{name}' can only be used as "
                      + {intr.BUFFER: "the value of an assignment", intr.LOOP: "the iterator of a for loop",
                         intr.SCOPE: "the context of a with statement", intr.KERNEL: "a decorator"}[row.kind], node)
    args = [lowering.expr(arg) for arg in node.args]
    if row.kind == intr.BUILTIN:
        return _builtin(lowering, name, args, node)
    for arg in args:
        if not (isinstance(arg, Dyn) or is_static_scalar(arg)):
            lowering.fail(HybridValueError, f"'{name}' needs numbers as arguments: {ast.unparse(node)}", node)
    if row.kind == intr.CAST:
        return cast_to(args[0], name)
    if all(is_static_scalar(a) for a in args):
        return _fold(row, args)
    if row.kind == intr.UNARY:
        return unary(name, args[0])
    return binary(name, args[0], args[1])


def _fold(row, args):
    """Evaluate an intrinsic on compile-time numbers with its numpy row (result: a Python number)."""
    return np.asarray(row.numpy_impl(*args)).item()


def cast_to(value, dtype: str):
    """int8(...), float16(...) ...: a strong value of ``dtype``."""
    return Dyn(to_expr(value, dtype))


def _in_compute_dtype(value: Dyn):
    """(expr in the dtype math runs in, dtype to round the result to)."""
    out_dtype = float_type_for(value.dtype)
    compute = "float32" if out_dtype == "float16" else out_dtype
    return to_expr(value, compute), out_dtype


def unary(name: str, value: Dyn) -> Dyn:
    """One-argument math intrinsic on a run-time value."""
    dtype = value.dtype
    if name == "abs":
        return value if dtype == "bool" or dtype.startswith("uint") else Dyn(tirx.abs(value.expr), value.weak)
    if name == "sign":
        return _sign(value)
    if name in _ROUNDING_OPS:
        return Dyn(_ROUNDING_OPS[name](value.expr), value.weak) if is_float(dtype) else value
    if name in _CLASSIFY_OPS:
        fn, integer_result = _CLASSIFY_OPS[name]
        return Dyn(fn(value.expr)) if is_float(dtype) else Dyn(const(integer_result, "bool"))
    expr, out_dtype = _in_compute_dtype(value)
    if name == "expm1":
        result = _expm1(expr)
    else:
        result = _FLOAT_OPS[name](expr)
    return Dyn(to_expr(Dyn(result), out_dtype), value.weak)


def _sign(value: Dyn) -> Dyn:
    dtype = "int32" if value.dtype == "bool" else value.dtype
    x = to_expr(value, dtype)
    zero, one = const(0, dtype), const(1, dtype)
    minus_one = const(-1, dtype) if not dtype.startswith("uint") else zero
    return Dyn(tirx.Select(tirx.GT(x, zero), one, tirx.Select(tirx.LT(x, zero), minus_one, zero)), value.weak)


def _expm1(x):
    """exp(x) - 1 without cancellation near 0 (TIR has no expm1): a Taylor polynomial for |x| < 1e-3."""
    dtype = str(x.ty)
    small = tirx.LT(tirx.abs(x), const(1e-3, dtype))
    series = tirx.Mul(x, tirx.Add(const(1.0, dtype), tirx.Mul(x, tirx.Add(const(0.5, dtype),
                                                                             tirx.Mul(x, const(1 / 6, dtype))))))
    return tirx.Select(small, series, tirx.Sub(tirx.exp(x), const(1.0, dtype)))


def binary(name: str, left, right) -> Dyn:
    """power / atan2 / ceil_div with at least one run-time argument."""
    if name == "power":
        return power(left, right)
    rtype = result_type(type_of(left), type_of(right))
    if name == "ceil_div":
        if is_float(rtype.dtype):
            a, b = to_expr(left, rtype.dtype), to_expr(right, rtype.dtype)
            return Dyn(tirx.ceil(tirx.Div(a, b)), rtype.weak)
        dtype = "int32" if rtype.dtype == "bool" else rtype.dtype
        a, b = to_expr(left, dtype), to_expr(right, dtype)
        return Dyn(tirx.floordiv(tirx.Sub(tirx.Add(a, b), const(1, dtype)), b), rtype.weak)
    out_dtype = float_type_for(rtype.dtype)
    compute = "float32" if out_dtype == "float16" else out_dtype
    result = tirx.atan2(to_expr(left, compute), to_expr(right, compute))
    return Dyn(to_expr(Dyn(result), out_dtype), rtype.weak)


def power(base, exponent) -> Dyn:
    """``base ** exponent`` / power(): small non-negative integer exponents known at compile time are
    multiplied out; integer results are computed in float64 and rounded back."""
    rtype = result_type(type_of(base), type_of(exponent))
    dtype = "int32" if rtype.dtype == "bool" else rtype.dtype
    known = static_int(exponent) if not isinstance(exponent, float) else None
    if known is not None and 0 <= known <= 4:
        x = to_expr(base, dtype)
        result = const(1, dtype)
        for _ in range(known):
            result = x if _ == 0 else tirx.Mul(result, x)
        return Dyn(result, rtype.weak)
    if is_float(dtype):
        compute = "float32" if dtype == "float16" else dtype
        result = tirx.power(to_expr(base, compute), to_expr(exponent, compute))
        return Dyn(to_expr(Dyn(result), dtype), rtype.weak)
    result = tirx.nearbyint(tirx.power(to_expr(base, "float64"), to_expr(exponent, "float64")))
    return Dyn(tirx.Cast(dtype, result), rtype.weak)


def _builtin(lowering, name: str, args: list, node):
    if name == "len":
        value = args[0]
        if isinstance(value, Buf):
            return value.shape[0] if value.shape else 0
        if isinstance(value, tuple):
            return len(value)
        lowering.fail(HybridValueError, f"len() needs a tensor or a tuple: {ast.unparse(node)}", node)
    if len(args) == 1 and isinstance(args[0], tuple):
        args = list(args[0])
    if not args or not all(isinstance(a, Dyn) or is_static_scalar(a) for a in args):
        lowering.fail(HybridValueError, f"{name}() needs numbers: {ast.unparse(node)}", node)
    return fold_extreme(name, args)


def fold_extreme(name: str, args: list):
    """max()/min() over numbers: compile-time ones are folded, run-time ones use TIR Max/Min."""
    static = [a for a in args if is_static_scalar(a)]
    dynamic = [a for a in args if not is_static_scalar(a)]
    pick = max if name == "max" else min
    values = ([pick(static)] if static else []) + dynamic
    if not dynamic:
        return values[0]
    node_class = tirx.Max if name == "max" else tirx.Min
    result = values[0]
    for value in values[1:]:
        rtype = result_type(type_of(result), type_of(value))
        dtype = "int32" if rtype.dtype == "bool" else rtype.dtype
        result = Dyn(node_class(to_expr(result, dtype), to_expr(value, dtype)), rtype.weak)
    return result
