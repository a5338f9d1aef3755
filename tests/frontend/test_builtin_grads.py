"""Every built-in op's gradient against central finite differences (float64), and the gradient transforms."""
import numpy as np
import pytest

import mindspore as ms
import mindspore.ops as ops
import mindspore.ops.operations as P
from mindspore import Tensor, Parameter, ParameterTuple, nn

rng = np.random.default_rng(0)


def numeric_grad(f, x, eps=1e-6):
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        xp, xm = x.copy(), x.copy()
        xp[i] += eps
        xm[i] -= eps
        g[i] = (f(xp) - f(xm)) / (2 * eps)
    return g


def check(fn, *arrays, position=0):
    """ms.grad of sum(fn(...)) at `position` against finite differences."""
    tensors = [Tensor(a) for a in arrays]
    got = ms.grad(lambda *ts: ops.reduce_sum(fn(*ts)), grad_position=position)(*tensors).asnumpy()

    def scalar(v):
        args = [Tensor(a) for a in arrays]
        args[position] = Tensor(v)
        return float(fn(*args).asnumpy().sum())
    np.testing.assert_allclose(got, numeric_grad(scalar, arrays[position]), rtol=1e-5, atol=1e-6)


X = rng.uniform(0.5, 2.0, (2, 3))
Y = rng.uniform(0.5, 2.0, (3,))


@pytest.mark.parametrize("op", [P.Add(), P.Sub(), P.Mul(), P.RealDiv(), ops.add, ops.sub, ops.mul, ops.div])
@pytest.mark.parametrize("position", [0, 1])
def test_binary_ops_with_broadcast(op, position):
    check(op, X, Y, position=position)


@pytest.mark.parametrize("op", [P.Neg(), P.Square(), P.Exp(), P.Log(), P.Sqrt(), ops.neg, ops.square, ops.exp,
                                ops.log, ops.sqrt])
def test_unary_ops(op):
    check(op, X)


def test_reduce_sum_axes_and_keepdims():
    check(lambda x: P.ReduceSum(keep_dims=True)(x, 1) * Tensor(np.array([[1.0], [2.0]])), X)
    check(lambda x: P.ReduceSum()(x, (0,)) * Tensor(np.array([1.0, 2.0, 3.0])), X)
    assert P.ReduceSum(keep_dims=True)(Tensor(X), 1).shape == (2, 1)
    assert ops.reduce_sum(Tensor(X)).shape == ()


def test_shape_ops():
    w, w32 = Tensor(rng.uniform(size=(6,))), Tensor(rng.uniform(size=(3, 2)))
    check(lambda x: P.Reshape()(x, (6,)) * w, X)
    check(lambda x: ops.reshape(x, (3, -1)) * w32, X)
    check(lambda x: P.Transpose()(x, (1, 0)) * w32, X)
    check(lambda x: P.Cast()(x, ms.float64) * 3, X)
    check(lambda x: x * P.ZerosLike()(x) + P.OnesLike()(x) * x, X)
    check(lambda x: x[1] * Tensor(np.array([1.0, 2.0, 3.0])), X)


def test_matmul_both_sides_and_transposes():
    a, b = rng.uniform(size=(2, 3)), rng.uniform(size=(3, 4))
    check(P.MatMul(), a, b, position=0)
    check(P.MatMul(), a, b, position=1)
    check(P.MatMul(transpose_a=True), a.T.copy(), b, position=0)
    check(P.MatMul(transpose_b=True), a, b.T.copy(), position=1)
    check(ops.matmul, a, b, position=1)


def test_cast_to_int_has_no_gradient_flow():
    g = ms.grad(lambda x: ops.reduce_sum(ops.cast(ops.cast(x, ms.int32), ms.float32) + x))(Tensor(X))
    np.testing.assert_array_equal(g.asnumpy(), np.ones_like(X))


class _Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(np.array([2.0, 3.0], np.float32)), name="w")
        self.b = Parameter(Tensor(np.array(1.0, np.float32)), name="b", requires_grad=False)

    def construct(self, x, y):
        return ops.reduce_sum(x * self.w * y + self.b)


def test_grad_operation_modes():
    net = _Net()
    x, y = Tensor(np.array([1.0, 2.0], np.float32)), Tensor(np.array([5.0, 7.0], np.float32))
    np.testing.assert_array_equal(ops.GradOperation()(net)(x, y).asnumpy(), [10, 21])
    gx, gy = ops.GradOperation(get_all=True)(net)(x, y)
    np.testing.assert_array_equal(gy.asnumpy(), [2, 6])
    weights = ParameterTuple(net.trainable_params())
    assert [p.name for p in weights] == ["w"]
    (gw,) = ops.GradOperation(get_by_list=True)(net, weights)(x, y)
    np.testing.assert_array_equal(gw.asnumpy(), [5, 14])
    (ins, ws) = ops.GradOperation(get_all=True, get_by_list=True)(net, weights)(x, y)
    assert len(ins) == 2 and len(ws) == 1
    sens = Tensor(np.array(3.0, np.float32))
    np.testing.assert_array_equal(ops.GradOperation(sens_param=True)(net)(x, y, sens).asnumpy(), [30, 63])


def test_ms_grad_and_value_and_grad_shapes():
    net = _Net()
    x, y = Tensor(np.array([1.0, 2.0], np.float32)), Tensor(np.array([5.0, 7.0], np.float32))
    assert isinstance(ms.grad(net, grad_position=1)(x, y), Tensor)
    gx, gy = ms.grad(net, grad_position=(0, 1))(x, y)
    np.testing.assert_array_equal(gx.asnumpy(), [10, 21])
    ins, ws = ms.grad(net, grad_position=0, weights=net.trainable_params())(x, y)
    np.testing.assert_array_equal(ws[0].asnumpy(), [5, 14])
    only_w = ms.grad(net, grad_position=None, weights=net.w)(x, y)
    np.testing.assert_array_equal(only_w[0].asnumpy(), [5, 14])
    value, grads = ms.value_and_grad(net, grad_position=(0, 1), weights=net.trainable_params())(x, y)
    assert float(value) == 1 * 2 * 5 + 2 * 3 * 7 + 2.0 and len(grads) == 2 and len(grads[0]) == 2
    with pytest.raises(ValueError):
        ms.grad(net, grad_position=None)


def test_has_aux_and_multi_output():
    def f(x):
        return ops.reduce_sum(x * x), x + 1
    grads, aux = ms.grad(f, has_aux=True)(Tensor(np.array([1.0, 2.0], np.float32)))
    np.testing.assert_array_equal(grads.asnumpy(), [2, 4])
    np.testing.assert_array_equal(aux[0].asnumpy(), [2, 3])
    # without has_aux every output contributes
    g = ms.grad(lambda x: (x * 2, x * x))(Tensor(np.array([1.0, 3.0], np.float32)))
    np.testing.assert_array_equal(g.asnumpy(), [4, 8])


def test_unused_input_gets_zero_gradient_and_inputs_are_untouched():
    x = Tensor(np.array([1.0, 2.0], np.float32))
    y = Tensor(np.array([3.0, 4.0], np.float32))
    gx, gy = ms.grad(lambda a, b: ops.reduce_sum(a * 3), grad_position=(0, 1))(x, y)
    np.testing.assert_array_equal(gy.asnumpy(), [0, 0])
    assert x._node is None and y._node is None
