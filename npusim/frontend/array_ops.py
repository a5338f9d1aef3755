"""Built-in array operators with gradients: Reshape, Cast, Transpose, ZerosLike, OnesLike, Fill, indexing."""
from __future__ import annotations

import numpy as np

from npusim.errors import OpTypeError, OpValueError
from npusim.frontend import dtype as mstype
from npusim.frontend.primitive import NumpyPrimitive
from npusim.frontend.tensor import Tensor


def _array(x):
    return x._data if isinstance(x, Tensor) else np.asarray(x)


class Reshape(NumpyPrimitive):
    """``Reshape()(x, shape)``; one -1 entry is inferred."""

    def convert(self, args):
        if len(args) != 2:
            raise OpValueError(f"Reshape takes (x, shape), got {len(args)} arguments")
        shape = args[1]
        shape = tuple(int(s) for s in (shape.asnumpy().tolist() if isinstance(shape, Tensor) else shape))
        return _array(args[0]), shape

    def forward(self, x, shape):
        try:
            return x.reshape(shape)
        except ValueError:
            raise OpValueError(f"Reshape: cannot reshape a tensor of shape {list(x.shape)} "
                               f"({x.size} elements) to {list(shape)}") from None

    def backward(self, args, arrays, out, dout):
        return dout.reshape(arrays[0].shape), None


class Cast(NumpyPrimitive):
    """``Cast()(x, dtype)``."""

    def convert(self, args):
        if len(args) != 2:
            raise OpValueError(f"Cast takes (x, dtype), got {len(args)} arguments")
        return _array(args[0]), mstype.to_type(args[1]).np_dtype

    def forward(self, x, np_dtype):
        return x.astype(np_dtype)

    def backward(self, args, arrays, out, dout):
        x = arrays[0]
        return (dout.astype(x.dtype) if x.dtype.kind in "fc" else None), None


class Transpose(NumpyPrimitive):
    """``Transpose()(x, perm)``."""

    def convert(self, args):
        x = _array(args[0])
        perm = tuple(int(p) for p in args[1]) if len(args) > 1 else tuple(reversed(range(x.ndim)))
        if sorted(p % max(x.ndim, 1) for p in perm) != list(range(x.ndim)):
            raise OpValueError(f"Transpose: perm {perm} is not a permutation of the {x.ndim} axes of {x.shape}")
        return x, perm

    def forward(self, x, perm):
        return np.ascontiguousarray(np.transpose(x, perm))

    def backward(self, args, arrays, out, dout):
        return np.transpose(dout, np.argsort(arrays[1])), None


class ZerosLike(NumpyPrimitive):
    def forward(self, x):
        return np.zeros_like(x)

    def backward(self, args, arrays, out, dout):
        return (np.zeros_like(arrays[0]) if arrays[0].dtype.kind in "fc" else None,)


class OnesLike(ZerosLike):
    def forward(self, x):
        return np.ones_like(x)


class Zeros(NumpyPrimitive):
    def convert(self, args):
        shape = (args[0],) if isinstance(args[0], int) else tuple(args[0])
        return shape, mstype.to_type(args[1] if len(args) > 1 else mstype.float32).np_dtype

    def forward(self, shape, np_dtype):
        return np.zeros(shape, np_dtype)


class Ones(Zeros):
    def forward(self, shape, np_dtype):
        return np.ones(shape, np_dtype)


class Fill(NumpyPrimitive):
    """``Fill()(dtype, shape, value)``."""

    def convert(self, args):
        if len(args) != 3:
            raise OpValueError("Fill takes (dtype, shape, value)")
        return mstype.to_type(args[0]).np_dtype, tuple(args[1]), args[2]

    def forward(self, np_dtype, shape, value):
        return np.full(shape, value, dtype=np_dtype)


class ExpandDims(NumpyPrimitive):
    def forward(self, x, axis):
        return np.expand_dims(x, int(axis))

    def backward(self, args, arrays, out, dout):
        return dout.reshape(arrays[0].shape), None


class Squeeze(NumpyPrimitive):
    def __init__(self, axis=()):
        super().__init__("Squeeze")
        self.axis = (axis,) if isinstance(axis, int) else tuple(axis)

    def forward(self, x):
        return np.squeeze(x, axis=self.axis or None)

    def backward(self, args, arrays, out, dout):
        return (dout.reshape(arrays[0].shape),)


def _plain_index(index):
    if isinstance(index, Tensor):
        return index._data
    if isinstance(index, tuple):
        return tuple(i._data if isinstance(i, Tensor) else i for i in index)
    return index


class GetItem(NumpyPrimitive):
    """``x[index]``: basic and advanced numpy indexing; the gradient scatters back (adding repeated picks)."""

    def convert(self, args):
        return _array(args[0]), _plain_index(args[1])

    def forward(self, x, index):
        try:
            return np.array(x[index])
        except (IndexError, TypeError) as exc:
            raise OpTypeError(f"Tensor index {index!r} on shape {list(x.shape)}: {exc}") from None

    def backward(self, args, arrays, out, dout):
        x, index = arrays
        grad = np.zeros_like(x)
        np.add.at(grad, index, dout)
        return grad, None
