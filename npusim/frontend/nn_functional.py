"""Functional forms of the activations (``ops.relu``, ``ops.softmax``, ``ops.gelu`` ...), as MindSpore 2.x names and
parameterises them; each calls the primitive of :mod:`npusim.frontend.nn_ops`, so gradients flow."""
from __future__ import annotations

from npusim.errors import OpValueError
from npusim.frontend import nn_ops

_relu, _relu6, _sigmoid, _tanh = nn_ops.ReLU(), nn_ops.ReLU6(), nn_ops.Sigmoid(), nn_ops.Tanh()
_gelu_tanh, _gelu_erf, _fast_gelu = nn_ops.GeLU(), nn_ops.ErfGeLU(), nn_ops.FastGeLU()
_hswish, _hsigmoid, _softsign = nn_ops.HSwish(), nn_ops.HSigmoid(), nn_ops.Softsign()
_softplus, _selu, _mish, _silu = nn_ops.Softplus(), nn_ops.SeLU(), nn_ops.Mish(), nn_ops.SiLU()
GELU_APPROXIMATIONS = ("none", "tanh")


def relu(input):  # noqa: A002 - MindSpore's parameter name
    return _relu(input)


def relu6(x):
    return _relu6(x)


def sigmoid(input):  # noqa: A002
    return _sigmoid(input)


def tanh(input):  # noqa: A002
    return _tanh(input)


def softmax(input, axis=-1, *, dtype=None):  # noqa: A002
    if dtype is not None:
        from npusim.frontend.functional import cast
        input = cast(input, dtype)
    return nn_ops.Softmax(axis)(input)


def log_softmax(logits, axis=-1):
    return nn_ops.LogSoftmax(axis)(logits)


def gelu(input, approximate="none"):  # noqa: A002
    """``approximate`` "none": x Φ(x) with erf; "tanh": the tanh approximation (the GeLU primitive's)."""
    if approximate not in GELU_APPROXIMATIONS:
        raise OpValueError(f"For 'gelu', 'approximate' must be one of {list(GELU_APPROXIMATIONS)}, "
                           f"but got {approximate!r}")
    return (_gelu_erf if approximate == "none" else _gelu_tanh)(input)


def fast_gelu(x):
    return _fast_gelu(x)


def elu(input_x, alpha=1.0):
    return nn_ops.Elu(alpha)(input_x)


def leaky_relu(input, alpha=0.2):  # noqa: A002
    return nn_ops.LeakyReLU(alpha)(input)


def hardswish(x):
    return _hswish(x)


def hardsigmoid(input):  # noqa: A002
    return _hsigmoid(input)


def softplus(input, beta=1, threshold=20):  # noqa: A002
    """``log(1 + exp(beta x)) / beta``, linear where ``beta x > threshold`` (MindSpore 2.x's ops.softplus)."""
    from npusim.frontend import functional as F
    if beta == 1 and threshold >= 20:
        return _softplus(input)
    scaled = F.mul(input, float(beta))
    soft = F.div(_softplus(scaled), float(beta))
    mask = F.cast(scaled > threshold, input.dtype)
    return F.add(F.mul(mask, input), F.mul(F.sub(1.0, mask), soft))


def softsign(x):
    return _softsign(x)


def selu(input_x):
    return _selu(input_x)


def mish(x):
    return _mish(x)


def silu(input):  # noqa: A002
    return _silu(input)


__all__ = ["relu", "relu6", "sigmoid", "tanh", "softmax", "log_softmax", "gelu", "fast_gelu", "elu", "leaky_relu",
           "hardswish", "hardsigmoid", "softplus", "softsign", "selu", "mish", "silu"]
