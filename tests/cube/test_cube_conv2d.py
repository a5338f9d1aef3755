"""Issue 15: Conv2D on the cube through ops.Custom(func_type="tbe") with F16_5HD / F16_FracZ rows (MindSpore's
TransData converts the NCHW tensors), against a numpy convolution (float32 accumulation of float16 inputs)."""
import importlib

import numpy as np
import pytest

from mindspore import Tensor, ops
from mindspore.ops import CustomRegOp, DataType

from npusim.sim import set_chip


def _reg():
    five, frac_z, f16 = DataType.F16_5HD, DataType.F16_FracZ, DataType.F16_Default
    return (CustomRegOp("Conv2D").input(0, "x").input(1, "filter").input(2, "bias", "optional").output(0, "y")
            .attr("strides", "required", "listInt").attr("pads", "required", "listInt")
            .attr("dilations", "required", "listInt").attr("fuse_relu", "optional", "bool")
            .dtype_format(five, frac_z, f16, five).target("Ascend").get_op_info())


def _reference(x, w, bias, stride, pad, dilation, relu):
    n, _, h, width = x.shape
    co, _, kh, kw = w.shape
    xp = np.pad(x.astype(np.float32), ((0, 0), (0, 0), (pad[0], pad[1]), (pad[2], pad[3])))
    ho = (h + pad[0] + pad[1] - (kh - 1) * dilation[0] - 1) // stride[0] + 1
    wo = (width + pad[2] + pad[3] - (kw - 1) * dilation[1] - 1) // stride[1] + 1
    out = np.zeros((n, co, ho, wo), np.float32)
    for i in range(kh):
        for j in range(kw):
            rows = slice(i * dilation[0], i * dilation[0] + stride[0] * (ho - 1) + 1, stride[0])
            cols = slice(j * dilation[1], j * dilation[1] + stride[1] * (wo - 1) + 1, stride[1])
            out += np.einsum("nchw,oc->nohw", xp[:, :, rows, cols], w[:, :, i, j].astype(np.float32))
    if bias is not None:
        out += bias.astype(np.float32)[None, :, None, None]
    return np.maximum(out, 0) if relu else out


@pytest.mark.parametrize("chip", ["Ascend910", "Ascend910B1"])
def test_conv2d_with_stride_pad_dilation_bias_and_relu(chip):
    set_chip(chip)
    rng = np.random.default_rng(21)
    x = rng.standard_normal((2, 19, 9, 11)).astype(np.float16)
    w = rng.standard_normal((20, 19, 3, 3)).astype(np.float16)
    bias = rng.standard_normal(20).astype(np.float16)
    stride, pad, dilation = (2, 1), (1, 1, 2, 2), (1, 2)
    ref = _reference(x, w, bias, stride, pad, dilation, True)
    impl = importlib.import_module("impl_cube_conv2d").conv2d
    op = ops.Custom(impl, out_shape=ref.shape, out_dtype="float16", func_type="tbe", reg_info=_reg())
    out = op(Tensor(x), Tensor(w), Tensor(bias), [1, 1, *stride], list(pad), [1, 1, *dilation], True).asnumpy()
    assert out.shape == ref.shape and (out >= 0).all()
    np.testing.assert_allclose(out.astype(np.float32), ref, rtol=2e-3, atol=3e-2)


def test_conv2d_without_bias_plain_stride_one():
    rng = np.random.default_rng(22)
    x = rng.standard_normal((1, 16, 6, 6)).astype(np.float16)
    w = rng.standard_normal((16, 16, 1, 1)).astype(np.float16)
    ref = _reference(x, w, None, (1, 1), (0, 0, 0, 0), (1, 1), False)
    impl = importlib.import_module("impl_cube_conv2d").conv2d
    op = ops.Custom(impl, out_shape=ref.shape, out_dtype="float16", func_type="tbe", reg_info=_reg())
    out = op(Tensor(x), Tensor(w), [1, 1, 1, 1], [0, 0, 0, 0], [1, 1, 1, 1]).asnumpy()
    np.testing.assert_allclose(out.astype(np.float32), ref, rtol=2e-3, atol=2e-2)
