"""Issue 11 item 3: a bool input is accepted where the op's placeholder is bool (or uint8/int8): bool travels as
int8, as MindSpore hands it to TBE, and reaches any one-byte placeholder as the same bytes."""
import importlib

import numpy as np
import pytest

import mindspore as ms
from mindspore import Tensor, context, ops
from mindspore.ops import CustomRegOp, DataType

pytestmark = pytest.mark.filterwarnings("error::te_compat.fallback.ScalarPipeWarning")


@pytest.fixture(autouse=True)
def _ascend():
    context.set_context(device_target="Ascend")


def impl(func):
    return getattr(importlib.import_module("impl_masked_scale"), func)


def test_bool_input_reaches_a_bool_placeholder():
    info = CustomRegOp().input(0, "mask").input(1, "x").output(0, "y") \
        .dtype_format(DataType.BOOL_Default, DataType.F16_Default, DataType.F16_Default) \
        .dtype_format(DataType.BOOL_Default, DataType.F32_Default, DataType.F32_Default) \
        .target("Ascend").get_op_info()
    op = ops.Custom(impl("masked_scale"), out_shape=lambda m, x: x, out_dtype=lambda m, x: x, func_type="tbe",
                    reg_info=info)
    rng = np.random.default_rng(3)
    for dtype in (np.float16, np.float32):
        mask = rng.random((4, 33)) > 0.5
        x = rng.standard_normal((4, 33)).astype(dtype)
        out = op(Tensor(mask), Tensor(x)).asnumpy()
        np.testing.assert_array_equal(out, np.where(mask, x, dtype(0)))


def test_bool_input_reaches_a_uint8_placeholder():
    info = CustomRegOp().input(0, "mask").output(0, "y") \
        .dtype_format(DataType.BOOL_Default, DataType.F16_Default).target("Ascend").get_op_info()
    op = ops.Custom(impl("mask_to_half"), out_shape=lambda m: m, out_dtype=ms.float16, func_type="tbe",
                    reg_info=info)
    mask = np.array([[True, False, True, True]] * 8)
    np.testing.assert_array_equal(op(Tensor(mask)).asnumpy(), mask.astype(np.float16))
