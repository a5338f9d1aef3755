"""aclDataType codes, their npusim dtype names, and aclnn's dtype rules (promotion and "can cast").

aclnn follows PyTorch's rules (CANN's docs call them 互推导关系 / "数据类型推导规则"): two tensors promote to the
smallest dtype that holds both (bool < integers < floats; uint8 with int8 gives int16; float16 with float32 gives
float32); a tensor with a host scalar keeps the tensor's dtype unless the scalar is of a higher category (an int
tensor times a float scalar gives float32); a result may be written to an output dtype it "can cast" to (never
float to integer, never a number to bool).
"""
from __future__ import annotations

import enum

import numpy as np


class AclDataType(enum.IntEnum):
    """CANN's ``aclDataType`` codes (acl_base.h)."""

    ACL_DT_UNDEFINED = -1
    ACL_FLOAT = 0
    ACL_FLOAT16 = 1
    ACL_INT8 = 2
    ACL_INT32 = 3
    ACL_UINT8 = 4
    ACL_INT16 = 6
    ACL_UINT16 = 7
    ACL_UINT32 = 8
    ACL_INT64 = 9
    ACL_UINT64 = 10
    ACL_DOUBLE = 11
    ACL_BOOL = 12
    ACL_STRING = 13
    ACL_COMPLEX64 = 16
    ACL_COMPLEX128 = 17
    ACL_BF16 = 27
    ACL_INT4 = 29
    ACL_UINT1 = 30
    ACL_COMPLEX32 = 33

    @property
    def dtype_name(self) -> str:
        """The npusim/numpy dtype name ("float32", "bfloat16" ...); "undefined" for ACL_DT_UNDEFINED."""
        return _NAMES[self]

    @classmethod
    def of(cls, dtype) -> "AclDataType":
        """The code of a dtype name / numpy dtype (ValueError for one aclnn has no code for)."""
        name = dtype_name(dtype)
        for code, known in _NAMES.items():
            if known == name:
                return code
        raise ValueError(f"no aclDataType for dtype {dtype!r}")

    @classmethod
    def from_type_id(cls, type_id: int) -> "AclDataType":
        """The code of a MindSpore ``TypeId`` value (Bool=30 ... BFloat16=45), as MindSpore's GetAclDataType."""
        if int(type_id) not in _TYPE_IDS:
            raise ValueError(f"MindSpore TypeId {type_id} has no aclDataType (known: {sorted(_TYPE_IDS)})")
        return cls.of(_TYPE_IDS[int(type_id)])


_NAMES = {
    AclDataType.ACL_DT_UNDEFINED: "undefined", AclDataType.ACL_FLOAT: "float32", AclDataType.ACL_FLOAT16: "float16",
    AclDataType.ACL_INT8: "int8", AclDataType.ACL_INT32: "int32", AclDataType.ACL_UINT8: "uint8",
    AclDataType.ACL_INT16: "int16", AclDataType.ACL_UINT16: "uint16", AclDataType.ACL_UINT32: "uint32",
    AclDataType.ACL_INT64: "int64", AclDataType.ACL_UINT64: "uint64", AclDataType.ACL_DOUBLE: "float64",
    AclDataType.ACL_BOOL: "bool", AclDataType.ACL_STRING: "string", AclDataType.ACL_COMPLEX64: "complex64",
    AclDataType.ACL_COMPLEX128: "complex128", AclDataType.ACL_BF16: "bfloat16", AclDataType.ACL_INT4: "int4",
    AclDataType.ACL_UINT1: "uint1", AclDataType.ACL_COMPLEX32: "complex32",
}
#: MindSpore TypeId value -> dtype name (the values the reference lists; later ones shift between versions)
_TYPE_IDS = {30: "bool", 32: "int8", 33: "int16", 34: "int32", 35: "int64", 37: "uint8", 42: "float16",
             43: "float32", 44: "float64", 45: "bfloat16"}
_ALIASES = {"float": "float32", "half": "float16", "double": "float64", "bf16": "bfloat16", "fp16": "float16",
            "fp32": "float32", "bool_": "bool"}

FLOATS = ("float16", "bfloat16", "float32", "float64")
SIGNED = ("int8", "int16", "int32", "int64")
UNSIGNED = ("uint8", "uint16", "uint32", "uint64")
INTS = SIGNED + UNSIGNED
COMPLEX = ("complex32", "complex64", "complex128")
NUMERIC = FLOATS + INTS + ("bool",)
_BITS = {"bool": 1, "int8": 8, "uint8": 8, "int16": 16, "uint16": 16, "float16": 16, "bfloat16": 16, "int32": 32,
         "uint32": 32, "float32": 32, "int64": 64, "uint64": 64, "float64": 64}


def dtype_name(dtype) -> str:
    """Canonical name of ``dtype`` (a name, an AclDataType, a numpy dtype or type)."""
    if isinstance(dtype, AclDataType):
        return dtype.dtype_name
    if isinstance(dtype, str):
        text = dtype.strip().lower()
        return _ALIASES.get(text, text)
    return np.dtype(dtype).name


def category(dtype: str) -> int:
    """0 bool, 1 integer, 2 floating point, 3 complex."""
    if dtype == "bool":
        return 0
    if dtype in INTS:
        return 1
    return 3 if dtype in COMPLEX else 2


def promote(a: str, b: str):
    """The dtype two tensors of dtypes ``a`` and ``b`` promote to, or None when aclnn has no promotion."""
    if a == b:
        return a
    if "bool" in (a, b):
        return b if a == "bool" else a
    ca, cb = category(a), category(b)
    if ca != cb:
        return a if ca > cb else b
    if ca == 2:
        if {a, b} == {"float16", "bfloat16"}:
            return "float32"
        return a if _BITS[a] >= _BITS[b] else b
    if ca == 1:
        return _promote_ints(a, b)
    return None


def _promote_ints(a: str, b: str):
    if (a in UNSIGNED) == (b in UNSIGNED):
        return a if _BITS[a] >= _BITS[b] else b
    unsigned, signed = (a, b) if a in UNSIGNED else (b, a)
    if _BITS[signed] > _BITS[unsigned]:
        return signed
    wider = {8: "int16", 16: "int32", 32: "int64"}.get(_BITS[unsigned])
    return wider


def promote_scalar(tensor: str, scalar: str) -> str:
    """The dtype of ``tensor``-dtype data combined with a host scalar of dtype ``scalar`` (the scalar only wins when
    its category is higher: then the category's default, float32 / int64)."""
    ct, cs = category(tensor), category(scalar)
    if cs <= ct:
        return tensor
    return {1: "int64", 2: "float32", 3: "complex64"}[cs]


def can_cast(src: str, dst: str) -> bool:
    """Whether aclnn writes a ``src`` result to a ``dst`` output (no float/complex -> integer or bool, no
    complex -> real)."""
    return category(src) <= category(dst)


def np_dtype(name: str) -> np.dtype:
    """The numpy dtype of a name npusim stores (ValueError for bfloat16/complex32/int4/string ...)."""
    if name in ("bfloat16", "complex32", "int4", "uint1", "string", "undefined"):
        raise ValueError(f"numpy has no dtype {name}")
    return np.dtype(name)


__all__ = ["AclDataType", "COMPLEX", "FLOATS", "INTS", "NUMERIC", "SIGNED", "UNSIGNED", "can_cast", "category",
           "dtype_name", "np_dtype", "promote", "promote_scalar"]
