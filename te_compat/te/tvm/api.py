"""The old TVM API CANN op files call (``tvm.placeholder``, ``tvm.compute``, ``tvm.const``, ``tvm.select`` ...),
implemented on Apache TVM 0.27 (``tvm.te`` / ``tvm.tirx``), so the graphs built compile with
``te.create_prim_func`` + ``tvm.compile`` and feed npusim's scheduler.

Every function takes and returns surface objects (:mod:`te_compat.surface.tvm_objects`): tensors and expressions
whose ``dtype`` is a ``str``, as in CANN's TVM; raw TVM 0.27 objects are accepted too.  ``compute`` hands the
user's ``fcompute`` surface index vars and unwraps what it returns; ``comm_reducer`` does the same for
``fcombine`` / ``fidentity``.

Differences from CANN's TVM, by necessity: ``size_var`` is a plain ``var``.
"""
from __future__ import annotations

from numbers import Integral, Number

import tvm
from tvm import te, tirx

from npusim.errors import TbeDtypeError, TbeTypeError
from te_compat.objects import raw_tree
from te_compat.surface.tvm_objects import surface_function, user_callback, wrap_tree

#: reducers, math intrinsics and helpers that are the same functions in TVM 0.27 (served through
#: ``surface_function``; max/min/sum/abs/all/any/round/pow shadow the builtins in this module)
_TE_FUNCTIONS = ("extern", "max", "min", "sum", "thread_axis")
_TIRX_FUNCTIONS = (
    "abs", "all", "any", "call_extern", "call_intrin", "call_pure_extern", "ceil", "ceildiv", "cos", "cosh",
    "decl_buffer", "div", "erf", "exp", "floor", "floordiv", "floormod", "fmod", "if_then_else", "indexdiv",
    "indexmod", "isnan", "log", "log10", "log2", "max_value", "min_value", "nearbyint", "popcount", "power", "round",
    "rsqrt", "sigmoid", "sin", "sinh", "sqrt", "tan", "tanh", "trunc", "truncdiv", "truncmod")


def _dim(value):
    if isinstance(value, bool):
        raise TbeTypeError(f"a shape dimension must be an int or a TVM expression, got {value!r}")
    if isinstance(value, Integral):
        return int(value)
    if isinstance(value, tvm.ir.expr.Expr):
        return value
    raise TbeTypeError(f"a shape dimension must be an int or a TVM expression, got {type(value).__name__} "
                       f"{value!r}")


def _shape(shape) -> tuple:
    if isinstance(shape, (Integral, tvm.ir.expr.Expr)) and not isinstance(shape, bool):
        return (_dim(shape),)
    if not isinstance(shape, (list, tuple)) and type(shape).__name__ != "Array":
        raise TbeTypeError(f"a shape must be a list or tuple of dimensions, got {type(shape).__name__} {shape!r}")
    return tuple(_dim(d) for d in shape)


def _dtype(dtype, where: str) -> str:
    """A dtype argument as TVM's name; an unknown name raises TbeDtypeError naming it (CANN's TVM raises TVMError,
    a RuntimeError: "Unknown type ...")."""
    text = str(dtype)
    try:
        tvm.DataType(text)
    except (ValueError, TypeError, RuntimeError) as exc:
        raise TbeDtypeError(f"{where}: unknown dtype {text!r} ({exc}); expected a TVM dtype name such as float16, "
                            f"float32, int8, uint8, int32 or bool") from None
    return text


def placeholder(shape, dtype=None, name="placeholder", attrs=None):
    """An input tensor of ``shape`` and ``dtype`` (default "float32"); ``attrs`` ride on its operation
    (:mod:`te_compat.surface.placeholder_attrs`: ``tensor.op.attrs["format"].value``, assignable)."""
    from te_compat.surface.placeholder_attrs import attributed_placeholder
    shape = _shape(raw_tree(shape))
    return attributed_placeholder(shape, "float32" if dtype is None else _dtype(raw_tree(dtype),
                                  f"tvm.placeholder {name!r}"), str(name), attrs)


@surface_function
def compute(shape, fcompute, name="compute", tag="", attrs=None):
    """A tensor of ``shape`` whose element at indices ``i`` is ``fcompute(*i)``; ``tag``/``attrs`` go on the op.
    ``fcompute`` receives surface index vars; what it returns (an expression or a list) is unwrapped."""
    return te.compute(_shape(shape), user_callback(fcompute), name=name, tag=tag, attrs=attrs)


@surface_function
def const(value, dtype=None):
    """A constant; Python ints default to int32, floats to float32, bools to bool."""
    if hasattr(value, "item") and not isinstance(value, tvm.ir.expr.Expr):  # a numpy scalar
        value = value.item()
    return tirx.const(value, None if dtype is None else _dtype(dtype, f"tvm.const({value!r})"))


@surface_function
def var(name="tindex", dtype="int32"):
    """A scalar variable."""
    return te.var(name, _dtype(dtype, f"tvm.var {name!r}"))


@surface_function
def size_var(name="size", dtype="int32"):
    """A non-negative size variable (TVM 0.27 has no separate class: a plain ``var``)."""
    return te.var(name, _dtype(dtype, f"tvm.size_var {name!r}"))


@surface_function
def reduce_axis(dom, name="rv"):
    """A reduction axis over ``dom`` (a (begin, end) pair or a Range)."""
    return te.reduce_axis(dom, name=name)


@surface_function
def convert(value):
    """Python values (numbers, lists) as TVM objects."""
    return tirx.convert(value)


def _combiner(fcombine):
    """``fcombine`` as TVM's ``comm_reducer`` calls it: two parameters (TVM reads ``__code__``), surface operands,
    an unwrapped result."""

    def combine(lhs, rhs):
        return raw_tree(fcombine(wrap_tree(lhs), wrap_tree(rhs)))

    return combine


def comm_reducer(fcombine, fidentity, name="reduce"):
    """A commutative reducer ``reducer(expr, axis)`` from ``fcombine(x, y)`` and ``fidentity(dtype)`` (which get
    surface expressions and a ``str`` dtype)."""
    return surface_function(te.comm_reducer(_combiner(fcombine), user_callback(fidentity), name=name))


def _expr_dtype(expr):
    ty = getattr(expr, "ty", None)
    return str(ty) if isinstance(ty, tvm.ir.PrimType) else None


def _operand(value, other):
    if isinstance(value, tvm.te.tensor.TensorSlice):
        return value.asobject()
    if isinstance(value, Number) and not isinstance(value, bool):
        other_expr = other.asobject() if isinstance(other, tvm.te.tensor.TensorSlice) else other
        dtype = _expr_dtype(other_expr) if isinstance(other_expr, tvm.ir.expr.Expr) else None
        return tirx.const(value, dtype)
    return value


@surface_function
def select(cond, t, f):
    """``cond ? t : f`` elementwise (old ``tvm.select``); a Python number takes the other branch's dtype."""
    true_value, false_value = _operand(t, f), _operand(f, t)
    condition = cond.asobject() if isinstance(cond, tvm.te.tensor.TensorSlice) else cond
    return tirx.Select(tirx.convert(condition), true_value, false_value)


globals().update({name: surface_function(getattr(te, name)) for name in _TE_FUNCTIONS})
globals().update({name: surface_function(getattr(tirx, name)) for name in _TIRX_FUNCTIONS})
pow = globals()["power"]  # noqa: A001  (the old TVM spelling)

__all__ = [
    "abs", "all", "any", "call_extern", "call_intrin", "call_pure_extern", "ceil", "ceildiv", "comm_reducer",
    "compute", "const", "convert", "cos", "cosh", "decl_buffer", "div", "erf", "exp", "extern", "floor", "floordiv",
    "floormod", "fmod", "if_then_else", "indexdiv", "indexmod", "isnan", "log", "log10", "log2", "max", "max_value",
    "min", "min_value", "nearbyint", "placeholder", "popcount", "pow", "power", "reduce_axis", "round", "rsqrt",
    "select", "sigmoid", "sin", "sinh", "size_var", "sqrt", "sum", "tan", "tanh", "thread_axis", "trunc", "truncdiv",
    "truncmod", "var",
]
