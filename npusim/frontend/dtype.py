"""MindSpore data types (``mindspore.dtype`` / ``mindspore.common.dtype``) mapped onto numpy dtypes."""
from __future__ import annotations

import numpy as np

from npusim.errors import OpTypeError


class Type:
    """A MindSpore dtype object such as ``mstype.float32``; prints as ``Float32`` like MindSpore."""

    __slots__ = ("name", "np_dtype")

    def __init__(self, name: str, np_dtype):
        self.name = name
        self.np_dtype = np.dtype(np_dtype) if np_dtype is not None else None

    def __repr__(self):
        return self.name

    __str__ = __repr__

    def __eq__(self, other):
        if isinstance(other, Type):
            return self.name == other.name
        return NotImplemented

    def __hash__(self):
        return hash(self.name)

    def __reduce__(self):
        return (_by_name, (self.name,))


bool_ = Type("Bool", np.bool_)
int8 = Type("Int8", np.int8)
int16 = Type("Int16", np.int16)
int32 = Type("Int32", np.int32)
int64 = Type("Int64", np.int64)
uint8 = Type("UInt8", np.uint8)
uint16 = Type("UInt16", np.uint16)
uint32 = Type("UInt32", np.uint32)
uint64 = Type("UInt64", np.uint64)
float16 = Type("Float16", np.float16)
float32 = Type("Float32", np.float32)
float64 = Type("Float64", np.float64)
complex64 = Type("Complex64", np.complex64)
complex128 = Type("Complex128", np.complex128)
string = Type("String", None)
type_none = Type("TypeNone", None)

# MindSpore's aliases
int_ = int64
uint = uint64
float_ = float32
half = float16
single = float32
double = float64

_ALL = [bool_, int8, int16, int32, int64, uint8, uint16, uint32, uint64, float16, float32, float64,
        complex64, complex128]
_BY_NAME = {t.name: t for t in _ALL + [string, type_none]}
_BY_NUMPY = {t.np_dtype: t for t in _ALL}

number_type = tuple(t for t in _ALL if t is not bool_)
int_type = (int8, int16, int32, int64)
uint_type = (uint8, uint16, uint32, uint64)
float_type = (float16, float32, float64)
all_types = tuple(_ALL)


def _by_name(name):
    return _BY_NAME[name]


def to_type(value) -> Type:
    """Accept a MindSpore Type, a numpy dtype/type or a dtype name ("float32") and return the MindSpore Type."""
    if isinstance(value, Type):
        return value
    if isinstance(value, str):
        key = value.lower()
        if key in ("float", "half", "double", "int", "uint"):
            key = {"float": "float32", "half": "float16", "double": "float64", "int": "int32",
                   "uint": "uint32"}[key]
        if key == "bool":
            return bool_
        try:
            return _BY_NUMPY[np.dtype(key)]
        except TypeError:
            for t in _BY_NAME.values():
                if t.name.lower() == key:
                    return t
            raise OpTypeError(f"unknown dtype {value!r}") from None
    try:
        return _BY_NUMPY[np.dtype(value)]
    except (TypeError, KeyError):
        raise OpTypeError(f"cannot convert {value!r} to a MindSpore dtype") from None


def dtype_to_nptype(type_) -> type:
    """MindSpore's ``dtype_to_nptype``: the numpy scalar type of a MindSpore Type."""
    return to_type(type_).np_dtype.type


def nptype_to_dtype(np_type) -> Type:
    return to_type(np_type)


def pytype_to_dtype(obj) -> Type:
    """MindSpore's ``pytype_to_dtype``: bool → bool_, int → int64, float → float64, or a numpy type."""
    if obj is bool:
        return bool_
    if obj is int:
        return int64
    if obj is float:
        return float64
    return to_type(obj)


def dtype_to_pytype(type_) -> type:
    t = to_type(type_)
    if t is bool_:
        return bool
    if t in int_type or t in uint_type:
        return int
    if t in float_type:
        return float
    return complex


def np_name(type_) -> str:
    """numpy dtype name of a Type ("float32", "bool")."""
    return str(to_type(type_).np_dtype)
