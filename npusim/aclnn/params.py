"""The declared parameters of an aclnn operator and the checks every argument passes before an operator runs.

A parameter has a name (aclnn's), a kind and, for tensors, the dtypes the real aclnn operator accepts:

=============  ==========================  ==================================================
kind           aclnn type                  Python value
=============  ==========================  ==================================================
tensor         const aclTensor*            AclTensor (``tensor?``: or None, a null tensor)
scalar         const aclScalar*            AclScalar (``scalar?``: or None)
int_array      const aclIntArray*          AclIntArray (``int_array?``: or None)
float_array    const aclFloatArray*        AclFloatArray
bool_array     const aclBoolArray*         AclBoolArray
tensor_list    const aclTensorList*        AclTensorList
dtype          aclDataType                 AclDataType or its int code
bool           bool                        bool (or 0 / 1)
int            int64_t                     int
double         double                      float or int
str            const char*                 str
=============  ==========================  ==================================================
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np

from npusim.aclnn.dtypes import AclDataType
from npusim.aclnn.types import AclBoolArray, AclFloatArray, AclIntArray, AclScalar, AclTensor, AclTensorList

KINDS = ("tensor", "scalar", "int_array", "float_array", "bool_array", "tensor_list", "dtype", "bool", "int",
         "double", "str")
_TYPES = {"tensor": AclTensor, "scalar": AclScalar, "int_array": AclIntArray, "float_array": AclFloatArray,
          "bool_array": AclBoolArray, "tensor_list": AclTensorList}
_SPELLING = {"tensor": "an aclTensor (AclTensor)", "scalar": "an aclScalar (AclScalar)",
             "int_array": "an aclIntArray (AclIntArray)", "float_array": "an aclFloatArray (AclFloatArray)",
             "bool_array": "an aclBoolArray (AclBoolArray)", "tensor_list": "an aclTensorList (AclTensorList)",
             "dtype": "an aclDataType (AclDataType)", "bool": "a bool", "int": "an int64", "double": "a double",
             "str": "a string"}
#: MindSpore TypeId values: an int in this range given for an aclDataType was probably not converted
_TYPE_ID_RANGE = range(30, 50)


@dataclass(frozen=True)
class Param:
    """One aclnn parameter: ``name``, ``kind`` (see the module docstring), ``optional`` (None allowed),
    ``output`` (an output tensor the call writes), ``dtypes`` (for tensors and tensor lists: the dtypes aclnn
    accepts; None: any), ``null_entries`` (a tensor list whose entries may be null, as aclnnIndex's)."""

    name: str
    kind: str
    optional: bool = False
    output: bool = False
    dtypes: Optional[tuple] = None
    null_entries: bool = False

    @classmethod
    def parse(cls, spec: str, dtypes=None) -> "Param":
        """``"self:tensor"``, ``"weight:tensor?"``, ``"out:tensor!"`` (an output), ``"dims:int_array"`` ..."""
        name, _, kind = spec.partition(":")
        output, optional = kind.endswith("!"), kind.rstrip("!").endswith("?")
        kind = kind.rstrip("!").rstrip("?")
        if kind not in KINDS:
            raise ValueError(f"parameter {spec!r}: unknown kind {kind!r}")
        return cls(name, kind, optional, output, None if dtypes is None else tuple(dtypes))

    def describe(self) -> str:
        return f"{self.name} ({_SPELLING[self.kind]}{', may be null' if self.optional else ''})"


def params(*specs, dtypes=None) -> tuple:
    """Params from specs (see :meth:`Param.parse`); ``dtypes`` applies to every tensor / tensor_list."""
    return tuple(s if isinstance(s, Param) else
                 Param.parse(s, dtypes if s.split(":")[1].rstrip("!?") in ("tensor", "tensor_list") else None)
                 for s in specs)


def check_argument(param: Param, value, fail) -> object:
    """``value`` checked against ``param`` (``fail(cause)`` returns the error to raise); returns the value as the
    operator uses it (an AclDataType for a dtype code, a bool for 0/1 ...)."""
    if value is None:
        if param.optional:
            return None
        raise fail(f"is null, but {param.name} is required ({_SPELLING[param.kind]})")
    kind = param.kind
    if kind in _TYPES:
        if not isinstance(value, _TYPES[kind]):
            raise fail(f"expects {_SPELLING[kind]}, got {_describe(value)}")
        if kind == "tensor":
            _check_tensor_dtype(param, value, fail)
        elif kind == "tensor_list":
            _check_list(param, value, fail)
        return value
    return _plain(param, value, fail)


def _plain(param: Param, value, fail):
    kind = param.kind
    if isinstance(value, np.generic):
        value = value.item()
    if kind == "dtype":
        return _dtype(value, fail)
    if kind == "bool":
        if isinstance(value, bool) or (type(value) is int and value in (0, 1)):
            return bool(value)
    elif kind == "int":
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    elif kind == "double":
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
    elif kind == "str":
        if isinstance(value, (str, bytes)):
            return value.decode() if isinstance(value, bytes) else value
    raise fail(f"expects {_SPELLING[kind]}, got {_describe(value)}")


def _dtype(value, fail) -> AclDataType:
    if isinstance(value, AclDataType):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        try:
            return AclDataType(value)
        except ValueError:
            hint = " (it looks like a MindSpore TypeId: convert it with AclDataType.from_type_id)" \
                if value in _TYPE_ID_RANGE else ""
            raise fail(f"{value} is not an aclDataType code{hint}") from None
    raise fail(f"expects {_SPELLING['dtype']}, got {_describe(value)}")


def _check_tensor_dtype(param: Param, tensor: AclTensor, fail, where: str = "") -> None:
    if param.dtypes is not None and tensor.dtype not in param.dtypes:
        raise fail(f"{where}dtype {tensor.dtype} is not supported (supported: {', '.join(param.dtypes)})")


def _check_list(param: Param, tensors: AclTensorList, fail) -> None:
    for index, tensor in enumerate(tensors):
        if tensor is None:
            if param.null_entries:
                continue
            raise fail(f"entry {index} of the tensor list is null")
        _check_tensor_dtype(param, tensor, fail, f"entry {index}: ")


def _describe(value) -> str:
    if isinstance(value, (AclTensor, AclScalar, AclIntArray, AclFloatArray, AclBoolArray, AclTensorList)):
        return repr(value)
    if isinstance(value, np.ndarray):
        return f"a numpy array {value.dtype}{list(value.shape)} (wrap it in AclTensor)"
    text = repr(value)
    return f"{type(value).__name__} {text if len(text) <= 40 else text[:37] + '...'}"


__all__ = ["KINDS", "Param", "check_argument", "params"]
