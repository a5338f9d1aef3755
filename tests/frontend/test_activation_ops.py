"""Issue 11 item 11: ``ops.ReLU`` and the other activation primitives, their functional forms and nn cells, with
gradients — as MindSpore's own custom-op tests use them (test_custom_pyfunc.py's ``PyFuncNet`` applies
``ops.ReLU()`` to a pyfunc's output, for float and int dtypes).
"""
import math

import numpy as np
import pytest

import mindspore as ms
import mindspore.nn as nn
import mindspore.ops as ops
from mindspore import Tensor
from mindspore.ops import operations as P


def func_single_output(x1, x2):
    return x1 - x2


class PyFuncNet(nn.Cell):
    def __init__(self, fn, out_shapes, out_types):
        super().__init__()
        self.func = ops.Custom(fn, out_shapes, out_types, "pyfunc")
        self.relu = ops.ReLU()

    def construct(self, x1, x2):
        x = self.func(x1, x2)
        return self.relu(x[0])


@pytest.mark.parametrize("ms_dtype, np_dtype", [(ms.float16, np.float16), (ms.float32, np.float32),
                                                (ms.float64, np.float64), (ms.int32, np.int32),
                                                (ms.int64, np.int64)])
def test_pyfunc_then_relu_like_mindspores_test(ms_dtype, np_dtype):
    shape = (40, 40)
    np.random.seed(42)
    x1 = np.random.randint(-5, 5, size=shape).astype(np_dtype)
    x2 = np.random.randint(-5, 5, size=shape).astype(np_dtype)
    expect = ops.ReLU()(Tensor(func_single_output(x1, x2)))
    net = PyFuncNet(func_single_output, (shape,), (ms_dtype,))
    x = net(Tensor(x1), Tensor(x2))
    assert x.dtype == ms_dtype
    assert np.allclose(x.asnumpy(), expect.asnumpy())
    np.testing.assert_array_equal(expect.asnumpy(), np.maximum(x1 - x2, 0))


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _softmax(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


_erf = np.vectorize(math.erf)

# primitive, functional form, numpy reference
CASES = {
    "ReLU": (P.ReLU(), ops.relu, lambda x: np.maximum(x, 0)),
    "ReLU6": (P.ReLU6(), ops.relu6, lambda x: np.clip(x, 0, 6)),
    "Sigmoid": (P.Sigmoid(), ops.sigmoid, _sigmoid),
    "Tanh": (P.Tanh(), ops.tanh, np.tanh),
    "Softmax": (P.Softmax(), ops.softmax, _softmax),
    "LogSoftmax": (P.LogSoftmax(), ops.log_softmax, lambda x: np.log(_softmax(x))),
    "GeLU": (P.GeLU(), lambda x: ops.gelu(x, approximate="tanh"),
             lambda x: 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))),
    "FastGeLU": (P.FastGeLU(), ops.fast_gelu,
                 lambda x: x / (1 + np.exp(-1.702 * np.abs(x))) * np.exp(0.851 * (x - np.abs(x)))),
    "Elu": (P.Elu(), ops.elu, lambda x: np.where(x > 0, x, np.exp(x) - 1)),
    "HSwish": (P.HSwish(), ops.hardswish, lambda x: x * np.clip(x + 3, 0, 6) / 6),
    "HSigmoid": (P.HSigmoid(), ops.hardsigmoid, lambda x: np.clip(x + 3, 0, 6) / 6),
    "Softplus": (P.Softplus(), ops.softplus, lambda x: np.log1p(np.exp(x))),
    "Softsign": (P.Softsign(), ops.softsign, lambda x: x / (1 + np.abs(x))),
    "SeLU": (P.SeLU(), ops.selu,
             lambda x: 1.05070098 * np.where(x > 0, x, 1.67326324 * (np.exp(x) - 1))),
    "Mish": (P.Mish(), ops.mish, lambda x: x * np.tanh(np.log1p(np.exp(x)))),
    "SiLU": (P.SiLU(), ops.silu, lambda x: x * _sigmoid(x)),
}
# points away from the kinks (0, ±3, 6), where the derivative is not defined
X = np.array([[-4.5, -2.2, -0.7, 0.4], [1.3, 2.9, 5.1, 7.25]], np.float64)


@pytest.mark.parametrize("name", sorted(CASES))
def test_forward_matches_the_formula_in_every_form(name):
    primitive, functional, reference = CASES[name]
    for dtype, tol in ((np.float32, 1e-6), (np.float64, 1e-12)):
        x = X.astype(dtype)
        want = reference(X).astype(dtype)
        for out in (primitive(Tensor(x)), functional(Tensor(x))):
            assert out.dtype == ms.Tensor(x).dtype and out.shape == x.shape
            np.testing.assert_allclose(out.asnumpy(), want, rtol=tol, atol=tol)
    half = primitive(Tensor(X.astype(np.float16)))
    assert half.dtype == ms.float16
    np.testing.assert_allclose(half.asnumpy(), reference(X.astype(np.float16).astype(np.float64)),
                               rtol=2e-3, atol=2e-3)


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradient_matches_finite_differences(name):
    primitive, _, reference = CASES[name]
    weights = np.linspace(0.5, 2.0, X.size).reshape(X.shape)   # a non-uniform sensitivity tests the chain rule
    grad = ops.GradOperation(sens_param=True)(primitive)(Tensor(X), Tensor(weights)).asnumpy()
    eps = 1e-6
    numeric = np.zeros_like(X)
    for index in np.ndindex(X.shape):
        step = np.zeros_like(X)
        step[index] = eps
        numeric[index] = np.sum(weights * (reference(X + step) - reference(X - step))) / (2 * eps)
    np.testing.assert_allclose(grad, numeric, rtol=1e-5, atol=1e-7)


def test_gelu_primitive_values_from_mindspores_docstring():
    out = ops.GeLU()(Tensor(np.array([1.0, 2.0, 3.0]), ms.float32))
    np.testing.assert_allclose(out.asnumpy(), [0.841192, 1.9545976, 2.9963627], rtol=1e-6)
    exact = ops.gelu(Tensor(np.array([1.0, 2.0, 3.0]), ms.float32))   # approximate='none': erf
    np.testing.assert_allclose(exact.asnumpy(), 0.5 * np.array([1, 2, 3]) * (1 + _erf(np.array([1, 2, 3]) / 2 ** .5)),
                               rtol=1e-6)


def test_softmax_axis_and_relu_on_ints():
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_allclose(ops.Softmax(axis=0)(Tensor(x)).asnumpy(), _softmax(x, axis=0), rtol=1e-6)
    np.testing.assert_allclose(ops.softmax(Tensor(x), axis=(0, 1)).asnumpy(), np.exp(x) / np.exp(x).sum(),
                               rtol=1e-6)
    out = ops.ReLU6()(Tensor(np.array([-3, 4, 9], np.int32)))
    assert out.dtype == ms.int32 and out.asnumpy().tolist() == [0, 4, 6]
    with pytest.raises(TypeError, match="'Sigmoid'.*float"):
        ops.Sigmoid()(Tensor(np.array([1, 2], np.int32)))


def test_activation_cells_and_attributes():
    x = Tensor(X.astype(np.float32))
    np.testing.assert_allclose(nn.ReLU()(x).asnumpy(), np.maximum(X, 0).astype(np.float32))
    np.testing.assert_allclose(nn.Softmax(axis=0)(x).asnumpy(), _softmax(X, axis=0), rtol=1e-6)
    np.testing.assert_allclose(nn.LeakyReLU(0.1)(x).asnumpy(), np.where(X > 0, X, 0.1 * X), rtol=1e-6)
    np.testing.assert_allclose(ops.leaky_relu(x, 0.1).asnumpy(), np.where(X > 0, X, 0.1 * X), rtol=1e-6)
    assert ops.Softmax(axis=1).attrs["axis"] == 1 and ops.Elu(alpha=0.5).alpha == 0.5
    np.testing.assert_allclose(nn.GELU(approximate=False)(x).asnumpy(), ops.gelu(x).asnumpy())
