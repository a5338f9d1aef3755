"""The functions of :mod:`npusim.ms.ops.composite.multitype_ops`: on Tensors they are the built-in operators
(gradients recorded); on Python values, Python's own operators; on tuples/lists (zeros_like, ones_like), elementwise.
"""
from __future__ import annotations

import operator

import numpy as np

from npusim.frontend import functional as F
from npusim.frontend.tensor import Tensor


def _either(tensor_op, python_op):
    def apply(x, y):
        if isinstance(x, Tensor) or isinstance(y, Tensor):
            return tensor_op(x, y)
        return python_op(x, y)
    apply.__name__ = python_op.__name__
    return apply


add = _either(F.add, operator.add)
sub = _either(F.sub, operator.sub)
mul = _either(F.mul, operator.mul)
div = truediv = _either(F.div, operator.truediv)
floordiv = _either(lambda x, y: x // y, operator.floordiv)
mod = _either(lambda x, y: x % y, operator.mod)
pow_ = _either(F.pow, operator.pow)
equal = _either(lambda x, y: x == y, operator.eq)
not_equal = _either(lambda x, y: x != y, operator.ne)
less = _either(lambda x, y: x < y, operator.lt)
less_equal = _either(lambda x, y: x <= y, operator.le)
greater = _either(lambda x, y: x > y, operator.gt)
greater_equal = _either(lambda x, y: x >= y, operator.ge)


def negative(x):
    return F.neg(x) if isinstance(x, Tensor) else -x


def uadd(x):
    return x


def logical_and(x, y):
    if isinstance(x, Tensor) or isinstance(y, Tensor):
        return Tensor._wrap(np.logical_and(np.asarray(x), np.asarray(y)))
    return x and y


def logical_or(x, y):
    if isinstance(x, Tensor) or isinstance(y, Tensor):
        return Tensor._wrap(np.logical_or(np.asarray(x), np.asarray(y)))
    return x or y


def logical_not(x):
    return Tensor._wrap(np.logical_not(np.asarray(x))) if isinstance(x, Tensor) else not x


def getitem(data, index):
    return F.getitem(data, index) if isinstance(data, Tensor) else data[index]


def zeros_like(x):
    """A zero of ``x``'s kind: a zero Tensor, 0 / 0.0 / False for Python scalars, elementwise for tuples/lists,
    None for None (a function or other object: 0, as MindSpore's EnvType zero)."""
    return _like(x, F.zeros_like, 0)


def ones_like(x):
    """A one of ``x``'s kind (see :func:`zeros_like`)."""
    return _like(x, F.ones_like, 1)


def _like(x, tensor_fn, value):
    if isinstance(x, Tensor):
        return tensor_fn(x)
    if isinstance(x, (tuple, list)):
        return type(x)(_like(item, tensor_fn, value) for item in x)
    if x is None:
        return None
    if isinstance(x, bool):
        return bool(value)
    if isinstance(x, (int, float, np.number)):
        return type(x)(value)
    if isinstance(x, np.ndarray):
        return np.full_like(x, value)
    return value
