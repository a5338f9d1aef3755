"""The arguments of one aclnn call made by a Custom aot op on Ascend, from the op's inputs and attributes.

MindSpore hands an aclnn Custom op's call arguments to the operator in order: the tensor inputs (a reg-info
``dynamic`` input as one aclTensorList), then the attributes (reg-info order, or the call's order without reg
info), then the outputs.  Each value becomes what the aclnn parameter at its position takes (the parameter list is
npusim.aclnn's, the facts of the real aclnnXGetWorkspaceSize):

- aclTensor ← an array / Tensor (a Python number becomes a 0-d tensor); aclTensorList ← a list of them;
- aclScalar ← a number (bool → bool, int → int64, float → float32, numpy scalars keep their dtype);
- aclIntArray / aclFloatArray / aclBoolArray ← a sequence (one number → one element);
- aclDataType ← a MindSpore dtype (``mstype.float32``), a numpy dtype or name, a MindSpore TypeId int, or a code;
- bool / int64_t / double / char* ← the value (0-d arrays from reg-info "inputs" that are scalars are unwrapped).

Parameters the call leaves out at the end are null when optional, 1 when named ``alpha`` (aclop Add/Sub have
none), else an error naming them.
"""
from __future__ import annotations

import numbers

import numpy as np

from npusim.aclnn import (AclBoolArray, AclDataType, AclFloatArray, AclIntArray, AclScalar, AclTensor,
                          AclTensorList)
from npusim.custom.reg_info import DYNAMIC, group_sizes, param_type
from npusim.errors import AclnnCustomOpError
from npusim.frontend import dtype as mstype
from npusim.frontend.tensor import Tensor

#: values of parameters a call may leave out (by aclnn parameter name)
DEFAULTS = {"alpha": 1}
_ARRAYS = {"int_array": AclIntArray, "float_array": AclFloatArray, "bool_array": AclBoolArray}
_SCALAR_DTYPES = ((bool, "bool"), (numbers.Integral, "int64"), (numbers.Real, "float32"))


def grouped(op_name: str, entries: list, items: list) -> list:
    """``items`` (one per tensor) grouped by the reg-info input ``entries``: a dynamic entry's items as one list."""
    result, start = [], 0
    for entry, size in zip(entries, group_sizes(op_name, entries, len(items))):
        chunk = items[start:start + size]
        result.append(list(chunk) if param_type(entry) == DYNAMIC else chunk[0])
        start += size
    return result


def array_of(value) -> np.ndarray:
    """A Tensor / array / number as a C-contiguous numpy array (no copy when it already is one)."""
    if isinstance(value, Tensor):
        value = value._data
    return np.ascontiguousarray(value)


class AclnnCall:
    """How one Custom op's inputs, attributes and outputs become the arguments of its aclnn operator ``op``."""

    def __init__(self, op_name: str, op, reg_info):
        self.op_name, self.api = op_name, op.name
        self.in_params = tuple(p for p in op.params if not p.output)
        self.out_params = tuple(p for p in op.params if p.output)
        first_out = next(i for i, p in enumerate(op.params) if p.output) if self.out_params else len(op.params)
        if any(not p.output for p in op.params[first_out:]):
            raise self.error(f"writes its input '{op.params[first_out].name}' in place; a Custom op returns new "
                             f"outputs, so call the out-of-place operator instead")
        entries = (reg_info or {}).get("inputs") or []
        self._reg_inputs = entries if any(param_type(e) == DYNAMIC for e in entries) else None

    def error(self, cause: str, index=None) -> AclnnCustomOpError:
        params = self.in_params + self.out_params
        return AclnnCustomOpError(self.op_name, self.api, cause, index, None if index is None else params[index].name)

    # ---- call values -----------------------------------------------------------------------------------------
    def values(self, inputs: list, attr_values: tuple) -> list:
        """The call's values in aclnn order: inputs (a dynamic input's tensors as one list) then attributes."""
        items = list(inputs) if self._reg_inputs is None else grouped(self.op_name, self._reg_inputs, inputs)
        return items + list(attr_values)

    def arguments(self, values: list, outputs: list) -> list:
        """The aclnn argument list for these call values and freshly allocated output arrays."""
        if len(values) > len(self.in_params):
            names = ", ".join(p.name for p in self.in_params)
            raise self.error(f"takes {len(self.in_params)} input and attribute argument(s) ({names}), but the Custom "
                             f"op was called with {len(values)}")
        args = [self._convert(i, p, v) for i, (p, v) in enumerate(zip(self.in_params, values))]
        for index in range(len(values), len(self.in_params)):
            args.append(self._default(index, len(values)))
        return args + self._outputs(outputs)

    def _default(self, index: int, given: int):
        param = self.in_params[index]
        if param.name in DEFAULTS:
            return self._convert(index, param, DEFAULTS[param.name])
        if param.optional:
            return None
        raise self.error(f"is required, but the Custom op passes only {given} input and attribute argument(s) "
                         f"(give it as a call argument, or declare it in the reg info's attrs)", index)

    def _outputs(self, arrays: list) -> list:
        lists = [i for i, p in enumerate(self.out_params) if p.kind == "tensor_list"]
        plain = len(self.out_params) - len(lists)
        if len(lists) == 1 and len(arrays) >= plain:
            sizes = [len(arrays) - plain if p.kind == "tensor_list" else 1 for p in self.out_params]
        elif not lists and len(arrays) <= len(self.out_params) and all(
                p.optional for p in self.out_params[len(arrays):]):
            sizes = [1] * len(arrays) + [0] * (len(self.out_params) - len(arrays))
        else:
            names = ", ".join(p.name for p in self.out_params)
            raise self.error(f"writes {len(self.out_params)} output(s) ({names}), but the Custom op's out_shape / "
                             f"out_dtype give {len(arrays)}")
        result, start = [], 0
        for param, size in zip(self.out_params, sizes):
            chunk = [AclTensor(a) for a in arrays[start:start + size]]
            start += size
            result.append(AclTensorList(chunk) if param.kind == "tensor_list" else (chunk[0] if chunk else None))
        return result

    # ---- conversions -----------------------------------------------------------------------------------------
    def _convert(self, index: int, param, value):
        if value is None:
            return None
        kind = param.kind
        try:
            if kind == "tensor":
                return value if isinstance(value, AclTensor) else AclTensor(array_of(value))
            if kind == "tensor_list":
                items = value if isinstance(value, (list, tuple)) else [value]
                return AclTensorList([AclTensor(array_of(item)) for item in items])
            if kind == "scalar":
                return value if isinstance(value, AclScalar) else _scalar(value)
            if kind in _ARRAYS:
                return _ARRAYS[kind](_items(value))
            if kind == "dtype":
                return _acl_dtype(value)
            return _plain(value, kind)
        except (TypeError, ValueError) as error:
            raise self.error(f"cannot take {value!r}: {error}", index) from None


def _unwrap(value):
    if isinstance(value, Tensor):
        value = value._data
    if isinstance(value, np.ndarray) and value.ndim == 0:
        return value[()]
    return value


def _scalar(value) -> AclScalar:
    value = _unwrap(value)
    if isinstance(value, np.generic):
        return AclScalar(value.item(), value.dtype.name)
    for kind, dtype in _SCALAR_DTYPES:
        if isinstance(value, kind):
            return AclScalar(value, dtype)
    raise TypeError(f"an aclScalar needs a number, got {type(value).__name__}")


def _items(value) -> list:
    value = _unwrap(value)
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, (list, tuple)):
        return [_unwrap(v) for v in value]
    return [value]


def _acl_dtype(value) -> AclDataType:
    value = _unwrap(value)
    if isinstance(value, AclDataType):
        return value
    if isinstance(value, mstype.Type):
        return AclDataType.of(mstype.np_name(value))
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        try:
            return AclDataType.from_type_id(int(value))  # MindSpore passes dtypes as TypeId values
        except ValueError:
            return AclDataType(int(value))
    return AclDataType.of(value)


def _plain(value, kind: str):
    value = _unwrap(value)
    if isinstance(value, np.generic):
        value = value.item()
    if kind == "double" and isinstance(value, numbers.Real) and not isinstance(value, bool):
        return float(value)
    if kind == "int" and isinstance(value, numbers.Integral):  # a bool too: MindSpore's reg infos declare int8
        return int(value)                                      # parameters (cubeMathType) "bool"
    return value
