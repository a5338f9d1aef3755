"""``Tensor(shape=[4, None], dtype=...)``: a tensor of dynamic shape, with no data.

MindSpore creates one whenever ``None`` is in ``shape`` and no data is given (and, with only a dtype, one of dynamic
rank: shape ``(-2,)``).  Its ``shape`` shows ``-1`` for each unknown dim, as MindSpore's does.  Scripts use it as an
input signature (``Cell.set_inputs(x_dyn)``, ``jit(input_signature=...)``, see :mod:`npusim.frontend.signature`);
anything that needs its values (arithmetic, ``asnumpy()``, an op) raises :class:`DynamicShapeDataError`.
"""
from __future__ import annotations

import numbers

from npusim.errors import DynamicShapeDataError, OpValueError
from npusim.frontend import dtype as mstype
from npusim.frontend.tensor import Tensor

#: the dim MindSpore shows for an unknown size, and the one-element shape of an unknown rank
UNKNOWN_DIM = -1
UNKNOWN_RANK_SHAPE = (-2,)


def is_dynamic_request(input_data, shape, dtype) -> bool:
    """Whether ``Tensor(input_data, dtype, shape)`` asks for a dynamic-shape placeholder."""
    if input_data is not None:
        return False
    if shape is None:
        return dtype is not None
    return isinstance(shape, (list, tuple)) and any(dim is None for dim in shape)


def _dims(shape) -> tuple:
    if shape is None:
        return UNKNOWN_RANK_SHAPE
    dims = []
    for dim in shape:
        if dim is None:
            dims.append(UNKNOWN_DIM)
        elif isinstance(dim, numbers.Integral) and not isinstance(dim, bool) and dim >= 0:
            dims.append(int(dim))
        else:
            raise OpValueError(f"Tensor: a dynamic shape holds ints >= 0 and None, but got {list(shape)}")
    return tuple(dims)


class DynamicShapeTensor(Tensor):
    """A Tensor whose shape is not known until the network runs (``isinstance(t, Tensor)`` holds)."""

    __slots__ = ()

    def __init__(self, input_data=None, dtype=None, shape=None, init=None, internal=False, const_arg=False,
                 device=None):
        if init is not None:
            raise OpValueError("Tensor: a tensor of dynamic shape (None in 'shape') cannot take 'init'")
        self.__dict__["_placeholder"] = (_dims(shape), mstype.to_type(dtype or mstype.float32))
        self._node = None
        self._node_index = 0

    @property
    def _data(self):
        raise DynamicShapeDataError(
            f"{self!r} is a tensor of dynamic shape: it has no data. MindSpore uses it as an input signature "
            f"(Cell.set_inputs, jit(input_signature=...)); call the network with Tensors that hold data")

    @property
    def shape(self) -> tuple:
        return self.__dict__["_placeholder"][0]

    @property
    def dtype(self):
        return self.__dict__["_placeholder"][1]

    @property
    def ndim(self) -> int:
        shape = self.shape
        return -1 if shape == UNKNOWN_RANK_SHAPE else len(shape)

    def dim(self) -> int:
        return self.ndim

    def is_dynamic_rank(self) -> bool:
        return self.shape == UNKNOWN_RANK_SHAPE

    def __reduce__(self):
        # copy / deepcopy / pickle rebuild the placeholder from its signature (there is no data to carry)
        shape = None if self.is_dynamic_rank() else [None if d == UNKNOWN_DIM else d for d in self.shape]
        return Tensor, (None, self.dtype, shape)

    def __repr__(self):
        return f"Tensor(shape={list(self.shape)}, dtype={self.dtype}, value=<dynamic shape, no data>)"

    __str__ = __repr__

    def __len__(self):
        return self._data.shape[0]
