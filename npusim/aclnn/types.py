"""The aclnn argument objects: aclTensor, aclScalar, aclIntArray / aclFloatArray / aclBoolArray, aclTensorList.

    x = AclTensor(np.ones((2, 3), np.float32))      # the array IS the tensor's memory: outputs are written in it
    alpha = AclScalar(1, "float32")
    dims = AclIntArray([0, 1])
    parts = AclTensorList([AclTensor(a), AclTensor(b)])

Plain Python bool / int / float / str are the aclnn ``bool`` / ``int64_t`` / ``double`` / ``const char*``
parameters, an :class:`~npusim.aclnn.dtypes.AclDataType` (or its int code) an ``aclDataType`` one, and None a
null optional tensor.
"""
from __future__ import annotations

from typing import Optional, Sequence

import numpy as np

from npusim.aclnn.dtypes import AclDataType, dtype_name, np_dtype
from npusim.errors.aclnn import AclnnError


class AclTensor:
    """An aclTensor over ``array`` (a numpy array or view: its memory is the tensor's, so an output's results land
    in it).  ``dtype``: the aclnn dtype when it is not ``array.dtype`` (a name or AclDataType, of the same item
    size, e.g. float16 data held in a uint16 array); ``format``: the aclFormat name ("ND", "NCHW" ...)."""

    __slots__ = ("array", "dtype", "format", "_own")

    def __init__(self, array, dtype=None, format: str = "ND"):  # noqa: A002  (aclnn's name)
        if not isinstance(array, np.ndarray):
            raise AclnnError("aclCreateTensor", f"the tensor memory must be a numpy array, got "
                                                f"{type(array).__name__}")
        self.array = array
        self.dtype = array.dtype.name if dtype is None else dtype_name(dtype)
        self.format = str(format)
        self._own = self.dtype == array.dtype.name
        if not self._own:
            try:
                size = np_dtype(self.dtype).itemsize
            except ValueError:
                size = None
            if size is not None and size != array.dtype.itemsize:
                raise AclnnError("aclCreateTensor", f"dtype {self.dtype} ({size} bytes) does not fit an array of "
                                                    f"{array.dtype.name} ({array.dtype.itemsize} bytes)")

    @property
    def shape(self) -> tuple:
        return tuple(int(d) for d in self.array.shape)

    @property
    def numel(self) -> int:
        return int(self.array.size)

    def data(self) -> np.ndarray:
        """The memory as a numpy array of the tensor's dtype (a view of ``array``)."""
        if self._own:
            return self.array
        return self.array.view(np_dtype(self.dtype))

    def __repr__(self) -> str:
        return f"AclTensor({self.dtype}{list(self.shape)}, {self.format})"


class AclScalar:
    """An aclScalar: ``value`` held as ``dtype`` (a name or AclDataType)."""

    __slots__ = ("value", "dtype")

    def __init__(self, value, dtype):
        self.dtype = dtype_name(dtype)
        if isinstance(value, np.generic):
            value = value.item()
        if not isinstance(value, (bool, int, float)):
            raise AclnnError("aclCreateScalar", f"the value must be a number, got {type(value).__name__}")
        self.value = value

    def __repr__(self) -> str:
        return f"AclScalar({self.value!r}, {self.dtype})"


class _Array:
    __slots__ = ("values",)
    _kind, _convert = "", staticmethod(lambda v: v)

    def __init__(self, values: Sequence):
        if isinstance(values, np.ndarray):
            values = values.tolist()
        try:
            self.values = tuple(self._convert(v) for v in values)
        except (TypeError, ValueError) as exc:
            raise AclnnError(f"aclCreate{self._kind}", f"bad element in {values!r}: {exc}") from None

    def __len__(self) -> int:
        return len(self.values)

    def __iter__(self):
        return iter(self.values)

    def __getitem__(self, index):
        return self.values[index]

    def __repr__(self) -> str:
        return f"Acl{self._kind}({list(self.values)})"


def _as_int(value) -> int:
    if isinstance(value, float) and not value.is_integer():
        raise ValueError(f"{value} is not an integer")
    return int(value)


class AclIntArray(_Array):
    """An aclIntArray (int64 values)."""
    __slots__ = ()
    _kind, _convert = "IntArray", staticmethod(_as_int)


class AclFloatArray(_Array):
    """An aclFloatArray (float values)."""
    __slots__ = ()
    _kind, _convert = "FloatArray", staticmethod(float)


class AclBoolArray(_Array):
    """An aclBoolArray (bool values)."""
    __slots__ = ()
    _kind, _convert = "BoolArray", staticmethod(bool)


class AclTensorList:
    """An aclTensorList of AclTensor (None entries are null tensors, which most operators reject)."""

    __slots__ = ("tensors",)

    def __init__(self, tensors: Sequence[Optional[AclTensor]]):
        tensors = tuple(tensors)
        for index, tensor in enumerate(tensors):
            if tensor is not None and not isinstance(tensor, AclTensor):
                raise AclnnError("aclCreateTensorList", f"entry {index} is {type(tensor).__name__}, not an "
                                                        f"AclTensor")
        self.tensors = tensors

    def __len__(self) -> int:
        return len(self.tensors)

    def __iter__(self):
        return iter(self.tensors)

    def __getitem__(self, index):
        return self.tensors[index]

    def __repr__(self) -> str:
        return f"AclTensorList({list(self.tensors)})"


__all__ = ["AclBoolArray", "AclDataType", "AclFloatArray", "AclIntArray", "AclScalar", "AclTensor", "AclTensorList"]
