"""Issue 11 item 11: Hybrid DSL ops without bprop get an automatic backward, as MindSpore's
``Custom._hybrid_autodiff`` gives them; what cannot be differentiated is a GradientError naming the op and why.

Written as MindSpore scripts are: a Cell around ops.Custom, gradients from GradOperation / mindspore.grad,
expectations from numpy (and, for the general kernels, central differences of the kernel run as Python).
"""
import numpy as np
import pytest

import mindspore as ms
from mindspore import Tensor, context, nn, ops
from mindspore.ops import kernel

from npusim.errors import GradientError

RNG = np.random.default_rng(7)


@kernel
def outer_product(a, b):
    c = output_tensor((a.shape[0], b.shape[1]), 'float32')
    for i0 in range(a.shape[0]):
        for i1 in range(b.shape[1]):
            c[i0, i1] = 0.0
            for i2 in range(a.shape[1]):
                c[i0, i1] = c[i0, i1] + (a[i0, i2] * b[i2, i1])
    return c


def outer_product_akg(a, b):   # the same kernel as MindSpore's test_custom_akg.py writes it (func_type="akg")
    c = output_tensor((a.shape[0], b.shape[1]), 'float32')
    for i0 in range(a.shape[0]):
        for i1 in range(b.shape[1]):
            c[i0, i1] = 0.0
            for i2 in range(a.shape[1]):
                c[i0, i1] = c[i0, i1] + (a[i0, i2] * b[i2, i1])
    return c


@kernel
def softmax_rows(x):
    y = output_tensor(x.shape, x.dtype)
    tmp = allocate((x.shape[1],), x.dtype)
    for i in range(x.shape[0]):
        m = x[i, 0]
        for j in range(x.shape[1]):
            m = max(m, x[i, j])
        s = 0.0
        for j in range(x.shape[1]):
            tmp[j] = exp(x[i, j] - m)
            s = s + tmp[j]
        for j in range(x.shape[1]):
            y[i, j] = tmp[j] / s
    return y


@kernel
def leaky_scale(x, alpha, power_of_two):
    y = output_tensor(x.shape, x.dtype)
    for i in range(x.shape[0]):
        if x[i] > 0.0:
            y[i] = x[i] * x[i] * power_of_two
        else:
            y[i] = alpha * sqrt(x[i] * x[i] + 1.0)
    return y


@kernel
def add_and_mul(a, b):
    c = output_tensor(a.shape, a.dtype)
    d = output_tensor(a.shape, a.dtype)
    for i in range(a.shape[0]):
        c[i] = a[i] + b[i]
        d[i] = a[i] * b[i]
    return c, d


@kernel
def double_in_place(a):
    for i in range(a.shape[0]):
        a[i] = a[i] * 2.0
    for i in range(a.shape[0]):
        a[i] = a[i] + tanh(a[i])
    return a


@kernel
def gather_rows(x, index):
    y = output_tensor((index.shape[0], x.shape[1]), x.dtype)
    for i in range(index.shape[0]):
        for j in range(x.shape[1]):
            y[i, j] = x[index[i], j]
    return y


@kernel
def segment_max(x, lengths):
    y = output_tensor((x.shape[0],), x.dtype)
    for i in range(x.shape[0]):
        m = x[i, 0]
        for j in range(lengths[i]):
            m = max(m, x[i, j])
        y[i] = m
    return y


@kernel
def segment_sum(x, lengths):
    y = output_tensor((x.shape[0],), x.dtype)
    for i in range(x.shape[0]):
        for j in range(lengths[i]):
            y[i] = y[i] + x[i, j]
    return y


class CustomNet(nn.Cell):
    def __init__(self, func, func_type="hybrid", out_shape=None, out_dtype=None):
        super().__init__()
        self.op = ops.Custom(func, out_shape=out_shape, out_dtype=out_dtype, func_type=func_type)

    def construct(self, *args):
        return self.op(*args)


def numeric_grad(func, inputs, dout, position, attrs=(), eps=1e-4):
    """Central differences of sum(func(*inputs) * dout) in float64, with the kernel run as Python."""
    base = [np.asarray(x, np.float64) for x in inputs]
    grad = np.zeros_like(base[position])
    for index in np.ndindex(*base[position].shape):
        plus = [x.copy() for x in base]
        minus = [x.copy() for x in base]
        plus[position][index] += eps
        minus[position][index] -= eps
        grad[index] = (np.sum(func(*plus, *attrs) * dout) - np.sum(func(*minus, *attrs) * dout)) / (2 * eps)
    return grad


@pytest.mark.parametrize("func, func_type", [(outer_product, "hybrid"), (outer_product_akg, "akg")])
def test_matmul_kernel_gets_the_matmul_gradient(func, func_type):
    x, y = RNG.normal(size=(3, 4)).astype(np.float32), RNG.normal(size=(4, 2)).astype(np.float32)
    dout = RNG.normal(size=(3, 2)).astype(np.float32)
    net = CustomNet(func, func_type, out_shape=lambda a, b: (a[0], b[1]), out_dtype=lambda a, b: a)
    dx, dy = ops.GradOperation(get_all=True, sens_param=True)(net)(Tensor(x), Tensor(y), Tensor(dout))
    np.testing.assert_allclose(dx.asnumpy(), dout @ y.T, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(dy.asnumpy(), x.T @ dout, rtol=1e-5, atol=1e-5)


def test_softmax_with_running_max_scratch_tensor_and_local_sums():
    x = RNG.normal(size=(3, 5)).astype(np.float32)
    dout = RNG.normal(size=(3, 5)).astype(np.float32)
    (dx,) = ops.GradOperation(get_all=True, sens_param=True)(CustomNet(softmax_rows))(Tensor(x), Tensor(dout))
    y = np.exp(x - x.max(axis=1, keepdims=True))
    y /= y.sum(axis=1, keepdims=True)
    expected = y * (dout - np.sum(dout * y, axis=1, keepdims=True))
    np.testing.assert_allclose(dx.asnumpy(), expected, rtol=1e-5, atol=1e-6)


def test_branches_and_attributes():
    x = np.array([-2.0, -0.5, 0.3, 1.5, 2.0], np.float32)
    grad = ms.grad(CustomNet(leaky_scale), grad_position=0)(Tensor(x), 0.25, 2.0)
    expected = numeric_grad(leaky_scale, [x], np.ones(5), 0, attrs=(0.25, 2.0))
    np.testing.assert_allclose(grad.asnumpy(), expected, rtol=1e-4, atol=1e-5)


def test_two_outputs_each_with_its_own_sensitivity():
    a, b = RNG.normal(size=6).astype(np.float32), RNG.normal(size=6).astype(np.float32)
    dc, dd = RNG.normal(size=6).astype(np.float32), RNG.normal(size=6).astype(np.float32)
    net = CustomNet(add_and_mul)
    da, db = ops.GradOperation(get_all=True, sens_param=True)(net)(Tensor(a), Tensor(b), (Tensor(dc), Tensor(dd)))
    np.testing.assert_allclose(da.asnumpy(), dc + dd * b, rtol=1e-6)
    np.testing.assert_allclose(db.asnumpy(), dc + dd * a, rtol=1e-6)


def test_an_input_updated_in_place_and_returned():
    a = RNG.normal(size=5).astype(np.float32)
    dout = RNG.normal(size=5).astype(np.float32)
    (da,) = ops.GradOperation(get_all=True, sens_param=True)(CustomNet(double_in_place))(Tensor(a), Tensor(dout))
    expected = dout * 2.0 * (1.0 + (1.0 - np.tanh(2.0 * a) ** 2))
    np.testing.assert_allclose(da.asnumpy(), expected, rtol=1e-5)
    np.testing.assert_array_equal(a, a.copy())   # the caller's array is not touched


def test_gather_scatters_the_gradient_and_integer_inputs_get_zeros():
    x = RNG.normal(size=(4, 3)).astype(np.float32)
    index = np.array([2, 0, 2], np.int32)
    dout = RNG.normal(size=(3, 3)).astype(np.float32)
    dx, dindex = ops.GradOperation(get_all=True, sens_param=True)(CustomNet(gather_rows))(
        Tensor(x), Tensor(index), Tensor(dout))
    expected = np.zeros_like(x)
    np.add.at(expected, index, dout)
    np.testing.assert_allclose(dx.asnumpy(), expected, rtol=1e-6)
    assert dindex.dtype == ms.int32 and not dindex.asnumpy().any()


def test_float16_kernels_get_float16_gradients():
    x = RNG.normal(size=(2, 4)).astype(np.float16)
    (dx,) = ops.GradOperation(get_all=True)(CustomNet(softmax_rows))(Tensor(x))
    assert dx.dtype == ms.float16
    np.testing.assert_allclose(dx.asnumpy().astype(np.float32), np.zeros((2, 4)), atol=2e-3)  # sum-of-softmax


def test_the_backward_runs_for_device_target_ascend_too():
    context.set_context(device_target="Ascend")
    x, y = RNG.normal(size=(2, 3)).astype(np.float32), RNG.normal(size=(3, 2)).astype(np.float32)
    net = CustomNet(outer_product, out_shape=lambda a, b: (a[0], b[1]), out_dtype=lambda a, b: a)
    dx, dy = ops.GradOperation(get_all=True)(net)(Tensor(x), Tensor(y))
    np.testing.assert_allclose(dx.asnumpy(), np.ones((2, 2)) @ y.T, rtol=1e-5)


def test_a_user_bprop_still_wins():
    def bprop(a, b, out, dout):
        return (a * 0 + 7, b * 0 + 9)
    op = ops.Custom(outer_product, out_shape=lambda a, b: (a[0], b[1]), out_dtype=lambda a, b: a,
                    func_type="hybrid", bprop=bprop)
    dx, dy = ops.GradOperation(get_all=True)(op)(Tensor(np.ones((2, 2), np.float32)),
                                                  Tensor(np.ones((2, 2), np.float32)))
    assert dx.asnumpy().tolist() == [[7, 7], [7, 7]] and dy.asnumpy().tolist() == [[9, 9], [9, 9]]


def test_a_data_dependent_trip_count_is_fine_when_nothing_it_overwrites_is_needed():
    x = RNG.normal(size=(2, 4)).astype(np.float32)
    lengths = np.array([3, 1], np.int32)
    dx, _ = ops.GradOperation(get_all=True)(CustomNet(segment_sum))(Tensor(x), Tensor(lengths))
    np.testing.assert_array_equal(dx.asnumpy(), [[1, 1, 1, 0], [1, 0, 0, 0]])


def test_a_data_dependent_trip_count_is_a_gradient_error_naming_op_and_reason():
    net = CustomNet(segment_max)
    x = RNG.normal(size=(2, 4)).astype(np.float32)
    lengths = np.array([4, 2], np.int32)
    np.testing.assert_allclose(net(Tensor(x), Tensor(lengths)).asnumpy(), [x[0].max(), x[1, :2].max()])
    with pytest.raises(GradientError, match=r"'segment_max'.*trip count of loop 'j' depends on tensor data"):
        ops.GradOperation(get_all=True)(net)(Tensor(x), Tensor(lengths))
