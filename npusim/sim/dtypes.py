"""Dtype names used by kernels and their numpy equivalents (numpy only; no bfloat16 in this simulator yet)."""
from __future__ import annotations

import numpy as np

from npusim.errors.sim import InvalidOperandError

NUMPY_DTYPES = {
    "int8": np.int8, "uint8": np.uint8, "int16": np.int16, "uint16": np.uint16, "float16": np.float16,
    "int32": np.int32, "uint32": np.uint32, "float32": np.float32, "int64": np.int64, "uint64": np.uint64,
    "float64": np.float64, "bool": np.bool_,
}
SHORT_NAMES = {"int8": "s8", "uint8": "u8", "int16": "s16", "uint16": "u16", "float16": "f16", "int32": "s32",
               "uint32": "u32", "float32": "f32", "int64": "s64", "uint64": "u64"}
_ALIASES = {"fp16": "float16", "half": "float16", "fp32": "float32", "float": "float32", "f16": "float16",
            "f32": "float32", "s8": "int8", "u8": "uint8", "s16": "int16", "u16": "uint16", "s32": "int32",
            "u32": "uint32", "s64": "int64", "u64": "uint64", "int": "int32"}
FLOAT_DTYPES = frozenset({"float16", "float32", "float64"})


def canonical_dtype(dtype) -> str:
    """Normalise a dtype given as a name ("fp16", "float16"), numpy dtype or numpy type to its kernel name."""
    if isinstance(dtype, str):
        name = dtype.strip().lower()
        name = _ALIASES.get(name, name)
    else:
        try:
            name = np.dtype(dtype).name
        except TypeError as exc:
            raise InvalidOperandError(f"not a dtype: {dtype!r}") from exc
    if name not in NUMPY_DTYPES:
        raise InvalidOperandError(f"unsupported dtype {dtype!r}; known: {', '.join(NUMPY_DTYPES)}")
    return name


def np_dtype(name: str) -> np.dtype:
    """numpy dtype of a kernel dtype name."""
    return np.dtype(NUMPY_DTYPES[name])


def itemsize(name: str) -> int:
    """Bytes per element of a kernel dtype name."""
    return np.dtype(NUMPY_DTYPES[name]).itemsize


def is_float(name: str) -> bool:
    """Whether the dtype is a floating-point type."""
    return name in FLOAT_DTYPES


def cast_scalar(value, dtype: str):
    """Convert a Python number to ``dtype`` as a register would hold it: wrap integers, round floats; floats
    stored to an integer dtype truncate (NaN gives 0, infinities the dtype's extremes).

    Returns a Python int or float (float16/float32 values are the rounded ones).
    """
    npd = np_dtype(dtype)
    if npd.kind == "f":
        return float(np.array(value, dtype=np.float64).astype(npd))
    if npd.kind == "b":
        return bool(value)
    bits = npd.itemsize * 8
    if isinstance(value, float) and not np.isfinite(value):  # NaN -> 0, +-inf -> the dtype's extremes
        if np.isnan(value):
            return 0
        info = np.iinfo(npd)
        return int(info.max if value > 0 else info.min)
    wrapped = int(value) & ((1 << bits) - 1)
    if npd.kind == "i" and wrapped >= 1 << (bits - 1):
        wrapped -= 1 << bits
    return wrapped
