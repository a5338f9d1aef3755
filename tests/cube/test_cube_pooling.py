"""Issue 15: max and avg pooling (pooling2d) through ops.Custom with F16_5HD rows, against numpy.  MAX / AVG / GMP
graphs run on the vector schedule of te_compat.pooling (tests/cube/test_pooling_vector_schedule.py checks its
instructions); GAP and fused graphs on the scalar-pipe fallback."""
import importlib

import numpy as np
import pytest

from mindspore import Tensor, ops
from mindspore.ops import CustomRegOp, DataType

from npusim.sim import set_chip

pytestmark = pytest.mark.filterwarnings("ignore::te_compat.fallback.ScalarPipeWarning")


def _reg(name):
    five = DataType.F16_5HD
    return (CustomRegOp(name).input(0, "x").output(0, "y").attr("ksize", "required", "listInt")
            .attr("strides", "required", "listInt").attr("padding", "required", "str")
            .dtype_format(five, five).target("Ascend").get_op_info())


def _reference(x, k, s, padding, mode):
    n, c, h, w = x.shape
    if padding == "SAME":
        ho, wo = -(-h // s[0]), -(-w // s[1])
        top = max((ho - 1) * s[0] + k[0] - h, 0) // 2
        left = max((wo - 1) * s[1] + k[1] - w, 0) // 2
    else:
        ho, wo, top, left = -(-(h - k[0] + 1) // s[0]), -(-(w - k[1] + 1) // s[1]), 0, 0
    out = np.zeros((n, c, ho, wo), np.float32)
    for y in range(ho):
        for x0 in range(wo):
            r0, c0 = y * s[0] - top, x0 * s[1] - left
            win = x[:, :, max(r0, 0):min(r0 + k[0], h), max(c0, 0):min(c0 + k[1], w)].astype(np.float32)
            out[:, :, y, x0] = win.max(axis=(2, 3)) if mode == "max" else win.mean(axis=(2, 3))
    return out


@pytest.mark.parametrize("chip", ["Ascend910", "Ascend910B1"])
@pytest.mark.parametrize("mode, padding", [("max", "SAME"), ("avg", "SAME"), ("max", "VALID"), ("avg", "VALID")])
def test_pooling_against_numpy(chip, mode, padding):
    set_chip(chip)
    x = np.random.default_rng(31).standard_normal((2, 19, 9, 10)).astype(np.float16)
    ksize, strides = [1, 1, 3, 2], [1, 1, 2, 2]
    ref = _reference(x, ksize[2:], strides[2:], padding, mode)
    impl = getattr(importlib.import_module("impl_cube_pooling"), f"{mode}_pool")
    op = ops.Custom(impl, out_shape=ref.shape, out_dtype="float16", func_type="tbe",
                    reg_info=_reg(f"{mode.capitalize()}Pool"))
    out = op(Tensor(x), ksize, strides, padding).asnumpy()
    assert out.shape == ref.shape
    np.testing.assert_allclose(out.astype(np.float32), ref, rtol=2e-3, atol=2e-3)
