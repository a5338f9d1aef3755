"""Dtype names and the Hybrid DSL's promotion rules (pure Python, no TVM).

A value's type is a :class:`TypeInfo`: a dtype name plus ``weak`` — True for Python literals (and float
attributes), which adapt to the tensor they meet instead of widening it, as in numpy 2 / NEP 50:

- ``x_f16 * 2.0`` stays float16 (the literal is cast), ``x_i32 + 1`` stays int32;
- an int literal meeting a float becomes that float; a float literal meeting an int tensor gives float32;
- two tensors: same dtype → itself; int vs float → the float; else the wider one.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

FLOAT_DTYPES = ("float16", "float32", "float64")
INT_DTYPES = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")
SUPPORTED_DTYPES = FLOAT_DTYPES + INT_DTYPES + ("bool",)

_INT32_MIN, _INT32_MAX = -(2 ** 31), 2 ** 31 - 1


@dataclass(frozen=True)
class TypeInfo:
    """A value's dtype name; ``weak`` marks Python literals that adapt to the other operand."""

    dtype: str
    weak: bool = False


def normalize_dtype(dtype) -> str:
    """A dtype name ("float32" ...) from a str, numpy dtype/type, or a MindSpore-like dtype object."""
    try:
        name = np.dtype(dtype).name
    except TypeError:
        name = str(dtype).lower().rsplit(".", 1)[-1]
        try:
            name = np.dtype(name).name
        except TypeError as exc:
            raise TypeError(f"unknown dtype {dtype!r}") from exc
    if name not in SUPPORTED_DTYPES:
        raise TypeError(f"dtype {name!r} is not supported by the Hybrid DSL (supported: {SUPPORTED_DTYPES})")
    return name


def is_float(dtype: str) -> bool:
    return dtype in FLOAT_DTYPES


def is_int(dtype: str) -> bool:
    return dtype in INT_DTYPES


def bits(dtype: str) -> int:
    return np.dtype(dtype).itemsize * 8


def static_type(value) -> TypeInfo:
    """The weak type of a Python literal."""
    if isinstance(value, (bool, np.bool_)):
        return TypeInfo("bool", True)
    if isinstance(value, (int, np.integer)):
        return TypeInfo("int32" if _INT32_MIN <= int(value) <= _INT32_MAX else "int64", True)
    if isinstance(value, (float, np.floating)):
        return TypeInfo("float32", True)
    raise TypeError(f"{value!r} is not a number")


def join_strong(a: str, b: str) -> str:
    """Result dtype of two tensor-typed operands."""
    if a == b:
        return a
    if a == "bool":
        return b
    if b == "bool":
        return a
    if is_float(a) != is_float(b):
        return a if is_float(a) else b
    if is_float(a):
        return a if bits(a) >= bits(b) else b
    joined = np.result_type(a, b).name
    return joined if joined in INT_DTYPES else "int64"   # int64 with uint64 gives float64 in numpy


def _weak_with_strong(weak: str, strong: str) -> str:
    if is_float(weak):
        return strong if is_float(strong) else "float32"
    return "int32" if strong == "bool" else strong


def result_type(a: TypeInfo, b: TypeInfo) -> TypeInfo:
    """The type two operands are brought to before an arithmetic or comparison op."""
    if a.weak and not b.weak:
        return TypeInfo(_weak_with_strong(a.dtype, b.dtype))
    if b.weak and not a.weak:
        return TypeInfo(_weak_with_strong(b.dtype, a.dtype))
    return TypeInfo(join_strong(a.dtype, b.dtype), a.weak and b.weak)


def join_types(types) -> TypeInfo:
    """One type for a variable assigned values of all ``types`` (the fold of :func:`result_type`)."""
    types = list(types)
    joined = types[0]
    for other in types[1:]:
        joined = result_type(joined, other)
    return joined


def float_type_for(dtype: str) -> str:
    """The float dtype math on ``dtype`` is carried out in (float16 is widened to float32 by the callers)."""
    if is_float(dtype):
        return dtype
    return "float64" if dtype in ("int64", "uint64", "uint32") else "float32"
