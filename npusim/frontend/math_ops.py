"""Built-in math operators with gradients: Add, Sub, Mul, RealDiv, Div, Neg, Square, Exp, Log, Sqrt, Pow, Abs,
ReduceSum, ReduceMean, MatMul, BatchMatMul."""
from __future__ import annotations

import numpy as np

from npusim.errors import OpValueError
from npusim.frontend.primitive import NumpyPrimitive, sum_to_shape
from npusim.frontend.tensor import binary_operands


class _Binary(NumpyPrimitive):
    def convert(self, args):
        if len(args) != 2:
            raise OpValueError(f"{self.name} takes 2 inputs, got {len(args)}")
        return binary_operands(*args)


def _cast_like(grad, arr):
    return grad.astype(arr.dtype, copy=False) if arr.dtype.kind in "fc" else None


class Add(_Binary):
    def forward(self, x, y):
        return x + y

    def backward(self, args, arrays, out, dout):
        return tuple(_cast_like(sum_to_shape(dout, a.shape), a) for a in arrays)


class Sub(_Binary):
    def forward(self, x, y):
        return x - y

    def backward(self, args, arrays, out, dout):
        x, y = arrays
        return _cast_like(sum_to_shape(dout, x.shape), x), _cast_like(sum_to_shape(-dout, y.shape), y)


class Mul(_Binary):
    def forward(self, x, y):
        return x * y

    def backward(self, args, arrays, out, dout):
        x, y = arrays
        return _cast_like(sum_to_shape(dout * y, x.shape), x), _cast_like(sum_to_shape(dout * x, y.shape), y)


class RealDiv(_Binary):
    def forward(self, x, y):
        if x.dtype.kind in "biu":
            return np.true_divide(x, y).astype(np.float32)
        return np.true_divide(x, y)

    def backward(self, args, arrays, out, dout):
        x, y = arrays
        return (_cast_like(sum_to_shape(dout / y, x.shape), x),
                _cast_like(sum_to_shape(-dout * out / y, y.shape), y))


class Div(RealDiv):
    pass


class Pow(_Binary):
    def forward(self, x, y):
        return np.power(x, y)

    def backward(self, args, arrays, out, dout):
        x, y = arrays
        dx = dout * y * np.power(x, y - 1)
        with np.errstate(divide="ignore", invalid="ignore"):
            dy = dout * out * np.where(x > 0, np.log(np.where(x > 0, x, 1)), 0)
        return _cast_like(sum_to_shape(dx, x.shape), x), _cast_like(sum_to_shape(dy, y.shape), y)


class _Unary(NumpyPrimitive):
    def convert(self, args):
        if len(args) != 1:
            raise OpValueError(f"{self.name} takes 1 input, got {len(args)}")
        return (np.asarray(args[0]._data if hasattr(args[0], "_data") else args[0]),)


class Neg(_Unary):
    def forward(self, x):
        return -x

    def backward(self, args, arrays, out, dout):
        return (-dout,)


class Square(_Unary):
    def forward(self, x):
        return x * x

    def backward(self, args, arrays, out, dout):
        return (dout * 2 * arrays[0],)


class Exp(_Unary):
    def forward(self, x):
        return np.exp(x)

    def backward(self, args, arrays, out, dout):
        return (dout * out,)


class Log(_Unary):
    def forward(self, x):
        return np.log(x)

    def backward(self, args, arrays, out, dout):
        return (dout / arrays[0],)


class Sqrt(_Unary):
    def forward(self, x):
        return np.sqrt(x)

    def backward(self, args, arrays, out, dout):
        return (dout / (2 * out),)


class Abs(_Unary):
    def forward(self, x):
        return np.abs(x)

    def backward(self, args, arrays, out, dout):
        return (dout * np.sign(arrays[0]),)


def _axes(axis, ndim):
    if axis is None or axis == () or axis == []:
        return tuple(range(ndim))
    if isinstance(axis, (int, np.integer)):
        axis = (int(axis),)
    return tuple(sorted(int(a) % ndim if ndim else 0 for a in axis))


class ReduceSum(NumpyPrimitive):
    """``ReduceSum(keep_dims=False)(x, axis=())``: sum over ``axis`` (all axes when empty)."""

    def __init__(self, keep_dims=False, skip_mode=False):
        super().__init__("ReduceSum")
        self.keep_dims = bool(keep_dims)

    def convert(self, args):
        x = args[0]._data if hasattr(args[0], "_data") else np.asarray(args[0])
        axis = args[1] if len(args) > 1 else ()
        if hasattr(axis, "_data"):
            axis = axis._data.tolist()
        return x, _axes(axis, x.ndim)

    def forward(self, x, axes):
        return np.sum(x, axis=axes, keepdims=self.keep_dims) if x.ndim else x.copy()

    def backward(self, args, arrays, out, dout):
        x, axes = arrays
        kept = dout if self.keep_dims else np.expand_dims(dout, axes) if x.ndim else dout
        return np.broadcast_to(kept, x.shape).astype(x.dtype), None


class ReduceMean(ReduceSum):
    def __init__(self, keep_dims=False):
        super().__init__(keep_dims)
        self.name = "ReduceMean"

    def forward(self, x, axes):
        return np.mean(x, axis=axes, keepdims=self.keep_dims).astype(x.dtype) if x.ndim else x.copy()

    def backward(self, args, arrays, out, dout):
        x, axes = arrays
        count = int(np.prod([x.shape[a] for a in axes])) if x.ndim else 1
        return super().backward(args, arrays, out, dout / count)[0], None


class MatMul(NumpyPrimitive):
    """``MatMul(transpose_a=False, transpose_b=False)(a, b)`` for 2-D a and b."""

    def __init__(self, transpose_a=False, transpose_b=False):
        super().__init__("MatMul")
        self.transpose_a, self.transpose_b = bool(transpose_a), bool(transpose_b)

    def convert(self, args):
        a, b = binary_operands(*args)
        return a, b

    def _operands(self, a, b):
        return (np.swapaxes(a, -1, -2) if self.transpose_a else a,
                np.swapaxes(b, -1, -2) if self.transpose_b else b)

    def forward(self, a, b):
        x, y = self._operands(a, b)
        if x.shape[-1] != y.shape[-2 if y.ndim > 1 else 0]:
            raise OpValueError(f"{self.name}: inner dimensions differ: {a.shape} and {b.shape} "
                               f"(transpose_a={self.transpose_a}, transpose_b={self.transpose_b})")
        return np.matmul(x, y)

    def backward(self, args, arrays, out, dout):
        a, b = arrays
        x, y = self._operands(a, b)
        dx = np.matmul(dout, np.swapaxes(y, -1, -2))
        dy = np.matmul(np.swapaxes(x, -1, -2), dout)
        dx = np.swapaxes(dx, -1, -2) if self.transpose_a else dx
        dy = np.swapaxes(dy, -1, -2) if self.transpose_b else dy
        return sum_to_shape(dx, a.shape).astype(a.dtype), sum_to_shape(dy, b.shape).astype(b.dtype)


class BatchMatMul(MatMul):
    def __init__(self, transpose_a=False, transpose_b=False):
        super().__init__(transpose_a, transpose_b)
        self.name = "BatchMatMul"
