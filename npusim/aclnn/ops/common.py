"""Dtype lists of the aclnn reference pages and small helpers the operator families share."""
from __future__ import annotations

#: the dtypes aclnn's arithmetic operators accept (aclnnMul/Add/Sub reference pages)
ARITH = ("float32", "float16", "float64", "int32", "int64", "int16", "int8", "uint8", "bool", "complex128",
         "complex64", "bfloat16")
#: real numbers only (aclnnMaximum / Minimum / Neg ...)
REAL = ("float32", "float16", "float64", "int32", "int64", "int16", "int8", "uint8", "bool", "bfloat16")
#: floating point (aclnnExp / Log / Sqrt ... accept integers too and compute in float32)
FLOAT = ("float32", "float16", "float64", "bfloat16")
#: everything aclnnCast converts between
CASTABLE = ("float32", "float16", "float64", "int32", "int64", "int16", "int8", "uint8", "uint16", "uint32",
            "uint64", "bool", "complex64", "complex128", "bfloat16")

_NARROW = ("bool", "int8", "uint8", "int16")


def compute_dtype(dtype: str) -> str:
    """The dtype a kernel computes a ``dtype`` result in: narrow integers and bool in int32 (the result is cast back,
    wrapping as aclnn does), anything else as itself."""
    return "int32" if dtype in _NARROW else dtype


def scalar_value(value, dtype: str):
    """An aclScalar's value as ``dtype`` holds it (int for integers and bool, float otherwise)."""
    if dtype == "bool":
        return int(bool(value))
    if dtype.startswith(("int", "uint")):
        return int(value)
    return float(value)


def tvm_const(value, dtype: str):
    from tvm import tirx
    return tirx.const(scalar_value(value, dtype), dtype)


__all__ = ["ARITH", "CASTABLE", "FLOAT", "REAL", "compute_dtype", "scalar_value", "tvm_const"]
