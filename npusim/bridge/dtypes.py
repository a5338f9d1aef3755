"""Real MindSpore dtypes ↔ numpy dtype names, for the values that cross the pyfunc boundary."""
from __future__ import annotations

import numpy as np
from mindspore.common import dtype as mstype
from mindspore._c_expression import typing

from npusim.errors import BridgeUnsupportedError, OutputSpecError

#: MindSpore types whose values a pyfunc kernel cannot carry (MindSpore refuses them, or numpy has no such dtype)
_REFUSED = (typing.BFloat,)
#: numpy dtype name → MindSpore dtype (MindSpore's own converters are deprecated since 2.7 and warn on every use)
_BY_NAME = {name: getattr(mstype, "bool_" if name == "bool" else name)
            for name in ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                         "float16", "float32", "float64", "complex64", "complex128")}


def element_type(value):
    """A tensor type's element type (``TensorType(Float32)`` → ``Float32``); other types unchanged."""
    return value.element_type() if isinstance(value, typing.TensorType) else value


def np_name(op_name: str, value, index: int) -> str:
    """The numpy dtype name of MindSpore dtype ``value`` (output ``index`` of ``op_name``)."""
    item = element_type(value)
    if isinstance(item, _REFUSED):
        raise BridgeUnsupportedError(
            f"Custom op '{op_name}': output {index} is {item}: bfloat16 cannot cross MindSpore's pyfunc kernel (numpy "
            f"has no bfloat16); declare the output float16 or float32 and cast with ops.cast after the op")
    if isinstance(item, str):
        return np.dtype(item).name
    for name, ms_dtype in _BY_NAME.items():
        if item == ms_dtype:
            return name
    raise OutputSpecError(f"For 'Custom' op '{op_name}', 'out_dtype' gives {value!r} for output {index}: every "
                              f"output needs a MindSpore tensor dtype such as mindspore.float32")


def ms_type(value):
    """The MindSpore dtype MindSpore's own infer hands an out_shape/out_dtype function for argument ``value``: the
    element dtype of an array, the scalar type of a Python scalar, ``mstype.string`` for str."""
    if isinstance(value, (np.ndarray, np.generic)):
        return _BY_NAME.get(value.dtype.name, mstype.type_none)
    if isinstance(value, bool):
        return mstype.bool_
    if isinstance(value, int):
        return mstype.int64
    if isinstance(value, float):
        return mstype.float32
    if isinstance(value, str):
        return mstype.string
    return mstype.type_none


def is_refused_input(value) -> bool:
    """Whether an argument's MindSpore type cannot enter a pyfunc kernel (bfloat16)."""
    return isinstance(element_type(value), _REFUSED)


def is_interned_kind(value) -> bool:
    """Whether an argument's MindSpore type (as infer sees it) is one a pyfunc kernel cannot take: str, tuple,
    list (the bridge passes those as interned ids)."""
    return isinstance(value, (typing.String, typing.Tuple, typing.List))


__all__ = ["element_type", "is_interned_kind", "is_refused_input", "ms_type", "np_name"]
