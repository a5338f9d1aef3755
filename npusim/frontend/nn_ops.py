"""Activation primitives with gradients: ReLU, ReLU6, Sigmoid, Tanh, Softmax, LogSoftmax, GeLU, FastGeLU, Elu,
HSwish, HSigmoid, Softplus, Softsign, SeLU, Mish, SiLU (``mindspore.ops.<Name>()``; functional forms in
:mod:`npusim.frontend.nn_functional`).

Formulas are MindSpore's: ``GeLU`` is the tanh approximation its kernels compute (``ops.gelu`` picks erf or tanh
by ``approximate``), ``FastGeLU`` is ``x / (1 + exp(-1.702|x|)) * exp(0.851 (x - |x|))`` (= ``x * sigmoid(1.702 x)``),
SeLU uses MindSpore's alpha and scale.  float16 inputs are computed in float32 and the result cast back, as the
device kernels do; ReLU and ReLU6 also take integer tensors (kept integer), the others need a float tensor.
"""
from __future__ import annotations

import math

import numpy as np

from npusim.errors import OpTypeError, OpValueError
from npusim.frontend import dtype as mstype
from npusim.frontend.primitive import NumpyPrimitive

GELU_TANH_SCALE = math.sqrt(2.0 / math.pi)   # the tanh approximation of GeLU: tanh(√(2/π)(x + 0.044715 x³))
GELU_CUBIC = 0.044715
FAST_GELU_SCALE = 1.702
SELU_ALPHA = 1.67326324
SELU_SCALE = 1.05070098
_erf = np.vectorize(math.erf, otypes=[np.float64])


def _sigmoid(x):
    return 0.5 * (np.tanh(0.5 * x) + 1.0)   # overflow-free for large |x|


class Activation(NumpyPrimitive):
    """One-input elementwise activation: ``compute(x)`` and ``derivative(x, out)`` on float arrays."""

    takes_ints = False

    def convert(self, args):
        if len(args) != 1:
            raise OpValueError(f"For '{self.name}', the number of inputs must be 1, but got {len(args)}")
        x = args[0]._data if hasattr(args[0], "_data") else np.asarray(args[0])
        if x.dtype.kind not in "fc" and not (self.takes_ints and x.dtype.kind in "iu"):
            raise OpTypeError(f"For '{self.name}', the input must be a float Tensor"
                              f"{' or an int Tensor' if self.takes_ints else ''}, but got "
                              f"{mstype.to_type(x.dtype)}")
        return (x,)

    def forward(self, x):
        if x.dtype.kind not in "fc":
            return self.compute(x)
        work = x.astype(np.float32) if x.dtype == np.float16 else x
        return self.compute(work).astype(x.dtype, copy=False)

    def backward(self, args, arrays, out, dout):
        x = arrays[0]
        if x.dtype.kind not in "fc":
            return (None,)
        work = x.astype(np.float32) if x.dtype == np.float16 else x
        grad = dout.astype(work.dtype, copy=False) * self.derivative(work, out.astype(work.dtype, copy=False))
        return (grad.astype(x.dtype, copy=False),)

    def compute(self, x):
        raise NotImplementedError(f"{self.name} needs compute()")

    def derivative(self, x, out):
        raise NotImplementedError(f"{self.name} needs derivative()")


class ReLU(Activation):
    takes_ints = True

    def compute(self, x):
        return np.maximum(x, 0).astype(x.dtype, copy=False)

    def derivative(self, x, out):
        return (x > 0).astype(x.dtype)


class ReLU6(ReLU):
    def compute(self, x):
        return np.clip(x, 0, 6).astype(x.dtype, copy=False)

    def derivative(self, x, out):
        return ((x > 0) & (x < 6)).astype(x.dtype)


class Sigmoid(Activation):
    def compute(self, x):
        return _sigmoid(x)

    def derivative(self, x, out):
        return out * (1 - out)


class Tanh(Activation):
    def compute(self, x):
        return np.tanh(x)

    def derivative(self, x, out):
        return 1 - out * out


class GeLU(Activation):
    """MindSpore's ``GeLU`` primitive: ``0.5 x (1 + tanh(√(2/π)(x + 0.044715 x³)))``."""

    def compute(self, x):
        return 0.5 * x * (1 + np.tanh(GELU_TANH_SCALE * (x + GELU_CUBIC * x ** 3)))

    def derivative(self, x, out):
        inner = np.tanh(GELU_TANH_SCALE * (x + GELU_CUBIC * x ** 3))
        return 0.5 * (1 + inner) + 0.5 * x * (1 - inner * inner) * GELU_TANH_SCALE * (1 + 3 * GELU_CUBIC * x * x)


class ErfGeLU(Activation):
    """``x Φ(x)`` with the exact normal CDF (``ops.gelu(x, approximate='none')``)."""

    def compute(self, x):
        return (0.5 * x * (1 + _erf(x / math.sqrt(2.0)))).astype(x.dtype, copy=False)

    def derivative(self, x, out):
        cdf = 0.5 * (1 + _erf(x / math.sqrt(2.0)))
        return (cdf + x * np.exp(-0.5 * x * x) / math.sqrt(2 * math.pi)).astype(x.dtype, copy=False)


class FastGeLU(Activation):
    def compute(self, x):
        return x * _sigmoid(FAST_GELU_SCALE * x)

    def derivative(self, x, out):
        s = _sigmoid(FAST_GELU_SCALE * x)
        return s + FAST_GELU_SCALE * x * s * (1 - s)


class Elu(Activation):
    def __init__(self, alpha=1.0):
        super().__init__("Elu")
        self.add_prim_attr("alpha", float(alpha))

    def compute(self, x):
        return np.where(x > 0, x, self.alpha * np.expm1(np.minimum(x, 0)))

    def derivative(self, x, out):
        return np.where(x > 0, 1, out + self.alpha)


class LeakyReLU(Activation):
    """``max(x, alpha x)`` (``ops.leaky_relu`` / ``nn.LeakyReLU``)."""

    def __init__(self, alpha=0.2):
        super().__init__("LeakyReLU")
        self.add_prim_attr("alpha", float(alpha))

    def compute(self, x):
        return np.where(x > 0, x, x * self.alpha)

    def derivative(self, x, out):
        return np.where(x > 0, 1, self.alpha).astype(x.dtype)


class HSwish(Activation):
    def compute(self, x):
        return x * np.clip(x + 3, 0, 6) / 6

    def derivative(self, x, out):
        return np.where(x <= -3, 0, np.where(x >= 3, 1, (2 * x + 3) / 6))


class HSigmoid(Activation):
    def compute(self, x):
        return np.clip(x + 3, 0, 6) / 6

    def derivative(self, x, out):
        return np.where((x > -3) & (x < 3), 1 / 6, 0).astype(x.dtype)


class Softplus(Activation):
    def compute(self, x):
        return np.logaddexp(0, x)

    def derivative(self, x, out):
        return _sigmoid(x)


class Softsign(Activation):
    def compute(self, x):
        return x / (1 + np.abs(x))

    def derivative(self, x, out):
        return 1 / (1 + np.abs(x)) ** 2


class SeLU(Activation):
    def compute(self, x):
        return SELU_SCALE * np.where(x > 0, x, SELU_ALPHA * np.expm1(np.minimum(x, 0)))

    def derivative(self, x, out):
        return np.where(x > 0, SELU_SCALE, out + SELU_SCALE * SELU_ALPHA)


class Mish(Activation):
    def compute(self, x):
        return x * np.tanh(np.logaddexp(0, x))

    def derivative(self, x, out):
        t = np.tanh(np.logaddexp(0, x))
        return t + x * (1 - t * t) * _sigmoid(x)


class SiLU(Activation):
    def compute(self, x):
        return x * _sigmoid(x)

    def derivative(self, x, out):
        s = _sigmoid(x)
        return s * (1 + x * (1 - s))


def _axes(axis, ndim: int, name: str) -> tuple:
    axes = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
    for a in axes:
        if not -max(ndim, 1) <= int(a) < max(ndim, 1):
            raise OpValueError(f"For '{name}', 'axis' {a} is out of range for a {ndim}-D input")
    return tuple(int(a) % max(ndim, 1) for a in axes)


class Softmax(Activation):
    """``Softmax(axis=-1)``: exp(x - max) / sum over ``axis`` (an int or a tuple of ints)."""

    def __init__(self, axis=-1):
        super().__init__(type(self).__name__)
        self.add_prim_attr("axis", axis)

    def compute(self, x):
        axes = _axes(self.axis, x.ndim, self.name)
        shifted = np.exp(x - np.max(x, axis=axes, keepdims=True))
        return shifted / np.sum(shifted, axis=axes, keepdims=True)

    def backward(self, args, arrays, out, dout):
        work = out.astype(np.float32) if out.dtype == np.float16 else out
        axes = _axes(self.axis, work.ndim, self.name)
        grad = work * (dout - np.sum(dout * work, axis=axes, keepdims=True))
        return (grad.astype(out.dtype, copy=False),)


class LogSoftmax(Softmax):
    def compute(self, x):
        axes = _axes(self.axis, x.ndim, self.name)
        shifted = x - np.max(x, axis=axes, keepdims=True)
        return shifted - np.log(np.sum(np.exp(shifted), axis=axes, keepdims=True))

    def backward(self, args, arrays, out, dout):
        work = out.astype(np.float32) if out.dtype == np.float16 else out
        axes = _axes(self.axis, work.ndim, self.name)
        grad = dout - np.exp(work) * np.sum(dout, axis=axes, keepdims=True)
        return (grad.astype(out.dtype, copy=False),)
