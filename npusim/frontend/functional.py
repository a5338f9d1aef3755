"""Functional forms of the built-in operators (``ops.add``, ``ops.mul`` ... and ``mindspore.ops.functional``)."""
from __future__ import annotations

import numpy as np

from npusim.frontend import array_ops, math_ops
from npusim.frontend.tensor import Tensor

_add, _sub, _mul, _div = math_ops.Add(), math_ops.Sub(), math_ops.Mul(), math_ops.RealDiv()
_neg, _square, _exp, _log, _sqrt = math_ops.Neg(), math_ops.Square(), math_ops.Exp(), math_ops.Log(), math_ops.Sqrt()
_abs, _pow = math_ops.Abs(), math_ops.Pow()
_sum = {False: math_ops.ReduceSum(False), True: math_ops.ReduceSum(True)}
_mean = {False: math_ops.ReduceMean(False), True: math_ops.ReduceMean(True)}
_reshape, _cast, _transpose = array_ops.Reshape(), array_ops.Cast(), array_ops.Transpose()
_zeros_like, _ones_like, _getitem = array_ops.ZerosLike(), array_ops.OnesLike(), array_ops.GetItem()


def add(x, y):
    return _add(x, y)


def sub(x, y):
    return _sub(x, y)


def mul(x, y):
    return _mul(x, y)


def div(x, y, rounding_mode=None):
    out = _div(x, y)
    if rounding_mode == "floor":
        return Tensor._wrap(np.floor(out._data))
    if rounding_mode == "trunc":
        return Tensor._wrap(np.trunc(out._data))
    return out


realdiv = div
tensor_add = add
tensor_sub = sub
tensor_mul = mul
tensor_div = div


def neg(x):
    return _neg(x)


def square(x):
    return _square(x)


def exp(x):
    return _exp(x)


def log(x):
    return _log(x)


def sqrt(x):
    return _sqrt(x)


def abs(x):  # noqa: A001 - MindSpore's name
    return _abs(x)


def pow(x, y):  # noqa: A001 - MindSpore's name
    return _pow(x, y)


def reduce_sum(x, axis=(), keep_dims=False):
    return _sum[bool(keep_dims)](x, axis)


def sum(input, dim=None, keepdim=False, *, dtype=None):  # noqa: A001 - MindSpore 2.x ops.sum
    out = reduce_sum(input, () if dim is None else dim, keepdim)
    return cast(out, dtype) if dtype is not None else out


def reduce_mean(x, axis=(), keep_dims=False):
    return _mean[bool(keep_dims)](x, axis)


def mean(input, axis=None, keep_dims=False):
    return reduce_mean(input, () if axis is None else axis, keep_dims)


def reshape(x, shape):
    return _reshape(x, shape)


def cast(x, dtype):
    return _cast(x, dtype)


def transpose(x, perm):
    return _transpose(x, perm)


def permute(x, dims):
    return _transpose(x, dims)


def zeros_like(x, *, dtype=None):
    out = _zeros_like(x)
    return cast(out, dtype) if dtype is not None else out


def ones_like(x, *, dtype=None):
    out = _ones_like(x)
    return cast(out, dtype) if dtype is not None else out


def matmul(x, y):
    return math_ops.MatMul()(x, y)


def getitem(x, index):
    return _getitem(x, index)


def zeros(shape, dtype=None):
    from npusim.frontend import dtype as mstype
    return array_ops.Zeros()(shape, dtype or mstype.float32)


def ones(shape, dtype=None):
    from npusim.frontend import dtype as mstype
    return array_ops.Ones()(shape, dtype or mstype.float32)


def fill(type, shape, value):  # noqa: A002 - MindSpore's name
    return array_ops.Fill()(type, shape, value)


def expand_dims(x, axis):
    return array_ops.ExpandDims()(x, axis)


def squeeze(x, axis=()):
    return array_ops.Squeeze(axis)(x)


def stop_gradient(x):
    return Tensor._wrap(x._data)


def shape(x):
    return x.shape


def dtype(x):
    return x.dtype


def rank(x):
    return x.ndim


def size(x):
    return x.size


__all__ = [_name for _name, _value in list(globals().items())
           if not _name.startswith("_") and callable(_value) and getattr(_value, "__module__", None) == __name__]
