"""Complete operators written in the real TBE style, run unmodified through ops.Custom(func_type="tbe").

The impl_*.py modules beside this file import te / tbe / topi at module level, as CANN's op files do; they are
imported here only after the compatibility layer serves those names.
"""
import importlib

import numpy as np
import pytest

import mindspore as ms
from mindspore import Tensor, context, nn, ops
from mindspore.ops import CustomRegOp, DataType

# every operator here maps to vector instructions: a scalar-pipe fallback fails the test
pytestmark = pytest.mark.filterwarnings("error::te_compat.fallback.ScalarPipeWarning")


def impl(module: str, func: str):
    return getattr(importlib.import_module(module), func)


def reg(n_in: int, n_out: int, rows, attrs=()):
    """Reg info with n_in inputs, n_out outputs, the given dtype rows and (name, type) attrs."""
    builder = CustomRegOp()
    for i in range(n_in):
        builder = builder.input(i, f"x{i}")
    for i in range(n_out):
        builder = builder.output(i, f"y{i}")
    for name, value_type in attrs:
        builder = builder.attr(name, "required", value_type)
    for row in rows:
        builder = builder.dtype_format(*row)
    return builder.target("Ascend").get_op_info()


F16, F32, I32 = DataType.F16_Default, DataType.F32_Default, DataType.I32_Default


@pytest.fixture(autouse=True)
def _ascend():
    context.set_context(device_target="Ascend")


def test_add_with_broadcast_shape_util():
    op = ops.Custom(impl("impl_add_broadcast", "add"), out_shape=lambda x, y: np.broadcast_shapes(x, y),
                    out_dtype=lambda x, _: x, func_type="tbe", reg_info=reg(2, 1, [(F16,) * 3, (F32,) * 3, (I32,) * 3]))
    rng = np.random.default_rng(0)
    for dtype, shape_x, shape_y in [(np.float32, (3, 1, 5), (4, 5)), (np.float16, (2, 1), (2, 77)),
                                    (np.int32, (33,), (33,))]:
        x = (rng.standard_normal(shape_x) * 10).astype(dtype)
        y = (rng.standard_normal(shape_y) * 10).astype(dtype)
        out = op(Tensor(x), Tensor(y)).asnumpy()
        np.testing.assert_array_equal(out, x + y)


def test_add_far_beyond_ub_engages_tiling_and_multicore():
    from npusim.sim import profile
    op = ops.Custom(impl("impl_add_broadcast", "add"), out_shape=lambda x, y: x, out_dtype=lambda x, _: x,
                    func_type="tbe", reg_info=reg(2, 1, [(F16,) * 3]))
    rng = np.random.default_rng(1)
    x = rng.standard_normal(3_000_017).astype(np.float16)
    y = rng.standard_normal(3_000_017).astype(np.float16)
    with profile() as prof:
        out = op(Tensor(x), Tensor(y)).asnumpy()
    np.testing.assert_array_equal(out, x + y)
    assert prof.records and prof.records[-1].block_dim > 1


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
@pytest.mark.parametrize("slope", [0.0, 0.2])
def test_leaky_relu(dtype, slope):
    op = ops.Custom(impl("impl_leaky_relu", "leaky_relu"), out_shape=lambda x, _: x, out_dtype=lambda x, _: x,
                    func_type="tbe", reg_info=reg(1, 1, [(F16,) * 2, (F32,) * 2], [("negative_slope", "float")]))
    x = np.linspace(-3, 3, 7 * 33).reshape(7, 33).astype(dtype)
    out = op(Tensor(x), slope).asnumpy()
    expected = np.where(x > 0, x, x * dtype(slope)).astype(dtype)
    np.testing.assert_allclose(out, expected, rtol=1e-3, atol=1e-3)


@pytest.mark.parametrize("axes,keepdims", [([1], True), ([-1], False), ([0, 2], True)])
@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_reduce_mean(axes, keepdims, dtype):
    def out_shape(x, *_):
        return np.mean(np.zeros(x), axis=tuple(axes), keepdims=keepdims).shape
    op = ops.Custom(impl("impl_reduce_mean", "reduce_mean_d"), out_shape=out_shape, out_dtype=lambda x, *_: x,
                    func_type="tbe", reg_info=reg(1, 1, [(F16,) * 2, (F32,) * 2],
                                                  [("axes", "listInt"), ("keepdims", "bool")]))
    x = np.random.default_rng(2).standard_normal((6, 17, 9)).astype(dtype)
    out = op(Tensor(x), axes, keepdims).asnumpy()
    expected = np.mean(x.astype(np.float64), axis=tuple(axes), keepdims=keepdims)
    assert out.shape == expected.shape and out.dtype == dtype
    np.testing.assert_allclose(out, expected, rtol=2e-3 if dtype == np.float16 else 1e-5, atol=1e-3)


@pytest.mark.parametrize("dtype,shape", [(np.float32, (16, 100)), (np.float16, (5, 1000)), (np.float32, (3, 7))])
def test_softmax(dtype, shape):
    op = ops.Custom(impl("impl_softmax", "softmax_v2"), out_shape=lambda x: x, out_dtype=lambda x: x,
                    func_type="tbe", reg_info=reg(1, 1, [(F16,) * 2, (F32,) * 2]))
    x = (np.random.default_rng(3).standard_normal(shape) * 4).astype(dtype)
    out = op(Tensor(x)).asnumpy()
    wide = x.astype(np.float64)
    expected = np.exp(wide - wide.max(-1, keepdims=True))
    expected /= expected.sum(-1, keepdims=True)
    np.testing.assert_allclose(out, expected, rtol=5e-3 if dtype == np.float16 else 1e-5, atol=1e-4)


def test_cast_round_trip_rounds_half_to_even():
    op = ops.Custom(impl("impl_cast", "cast_round_trip"), out_shape=lambda x: x, out_dtype=lambda x: x,
                    func_type="tbe", reg_info=reg(1, 1, [(F32,) * 2]))
    x = np.array([0.5, 1.5, 2.5, -0.5, -1.5, 1.7, -2.2, 1000.25] * 9, np.float32)
    out = op(Tensor(x)).asnumpy()
    np.testing.assert_array_equal(out, np.round(x.astype(np.float16)).astype(np.float32))


def test_floor_to_int32():
    op = ops.Custom(impl("impl_cast", "floor_to_int"), out_shape=lambda x: x, out_dtype=ms.int32,
                    func_type="tbe", reg_info=reg(1, 1, [(F16, I32), (F32, I32)]))
    x = np.array([-2.5, -0.1, 0.0, 0.9, 3.99, -7.0] * 11, np.float16)
    out = op(Tensor(x)).asnumpy()
    np.testing.assert_array_equal(out, np.floor(x).astype(np.int32))


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_select_through_vcmp_vsel(dtype):
    op = ops.Custom(impl("impl_select", "select_max"), out_shape=lambda x, _: x, out_dtype=lambda x, _: x,
                    func_type="tbe", reg_info=reg(2, 1, [(F16,) * 3, (F32,) * 3]))
    rng = np.random.default_rng(4)
    x = rng.standard_normal((5, 40)).astype(dtype)
    y = rng.standard_normal((5, 40)).astype(dtype)
    np.testing.assert_array_equal(op(Tensor(x), Tensor(y)).asnumpy(), np.maximum(x, y))


def test_clip_with_float_attributes():
    op = ops.Custom(impl("impl_clip", "clip"), out_shape=lambda x, *_: x, out_dtype=lambda x, *_: x,
                    func_type="tbe", reg_info=reg(1, 1, [(F16,) * 2, (F32,) * 2],
                                                  [("clip_min", "float"), ("clip_max", "float")]))
    x = np.linspace(-2, 2, 1001).astype(np.float32)
    np.testing.assert_array_equal(op(Tensor(x), -0.5, 0.75).asnumpy(), np.clip(x, -0.5, 0.75))
    with pytest.raises(Exception, match="clip_min must not exceed clip_max"):
        op(Tensor(x), 1.0, 0.0)


@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_dynamic_shape_mul_with_classify(dtype):
    op = ops.Custom(impl("impl_dynamic_mul", "mul"), out_shape=lambda x, y: np.broadcast_shapes(x, y),
                    out_dtype=lambda x, _: x, func_type="tbe", reg_info=reg(2, 1, [(F32,) * 3, (I32,) * 3]))
    x = np.arange(4, dtype=dtype).reshape(4, 1) + 1
    y = np.arange(24, dtype=dtype).reshape(4, 6) - 5
    np.testing.assert_array_equal(op(Tensor(x), Tensor(y)).asnumpy(), x * y)


def test_bprop_from_tbe_ops_under_sens_param():
    mul_info = reg(2, 1, [(F32,) * 3])
    mul = ops.Custom(impl("impl_dynamic_mul", "mul"), out_shape=lambda x, _: x, out_dtype=lambda x, _: x,
                     func_type="tbe", reg_info=mul_info)

    def bprop(x, y, out, dout):
        return mul(dout, y), mul(dout, x)

    forward = ops.Custom(impl("impl_dynamic_mul", "mul"), out_shape=lambda x, _: x, out_dtype=lambda x, _: x,
                         func_type="tbe", reg_info=mul_info, bprop=bprop)

    class Net(nn.Cell):
        def construct(self, x, y):
            return forward(x, y)

    x = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
    y = np.array([[5.0, 6.0], [7.0, 8.0]], np.float32)
    sens = np.array([[1.0, 0.5], [2.0, -1.0]], np.float32)
    dx, dy = ops.GradOperation(get_all=True, sens_param=True)(Net())(Tensor(x), Tensor(y), Tensor(sens))
    np.testing.assert_array_equal(dx.asnumpy(), sens * y)
    np.testing.assert_array_equal(dy.asnumpy(), sens * x)
