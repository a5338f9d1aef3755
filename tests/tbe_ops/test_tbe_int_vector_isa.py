"""Issue 11 item 2: integer vector instructions per chip.

CANN's te.lang.cce checks vmaxs/vmins against vmax/vmin on chips whose intrinsic table has no Intrinsic_vmaxs
(``_intrinsic_check`` in elewise_compute; Ascend910/310), so int32 Relu6 stays int32 there; vadds/vmuls have no
int32 on Ascend910 (float16/float32 only) and auto-cast, which an output-dtype error then names.
"""
import importlib

import numpy as np
import pytest

from mindspore import Tensor, context, ops
from mindspore.ops import CustomRegOp, DataType

from npusim.errors import TbeLaunchError
from npusim.sim import set_chip

pytestmark = pytest.mark.filterwarnings("error::te_compat.fallback.ScalarPipeWarning")

I32, I8 = DataType.I32_Default, DataType.I8_Default


@pytest.fixture(autouse=True)
def _ascend():
    context.set_context(device_target="Ascend")


def impl(module, func):
    return getattr(importlib.import_module(module), func)


def reg(row, attrs=()):
    builder = CustomRegOp().input(0, "x").output(0, "y")
    for name, kind in attrs:
        builder = builder.attr(name, "required", kind)
    return builder.dtype_format(*row).target("Ascend").get_op_info()


@pytest.mark.parametrize("chip", ["Ascend910", "Ascend310", "Ascend910B1", "Ascend310P3"])
def test_relu6_int32_keeps_int32_on_every_chip(chip):
    set_chip(chip)
    op = ops.Custom(impl("impl_relu6", "relu6"), out_shape=lambda x: x, out_dtype=lambda x: x, func_type="tbe",
                    reg_info=reg((I32, I32)))
    x = np.arange(-40, 40, dtype=np.int32).reshape(5, 16) * 3
    out = op(Tensor(x)).asnumpy()
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out, np.clip(x, 0, 6))


def test_relu6_int32_beyond_float32_precision_is_exact_on_ascend910():
    """Computed in int32 (vector_dup + vmax/vmin), not through float32: 2**24 + 1 survives."""
    op = ops.Custom(impl("impl_relu6", "relu6"), out_shape=lambda x: x, out_dtype=lambda x: x, func_type="tbe",
                    reg_info=reg((I32, I32)))
    x = np.array([2 ** 24 + 1, -(2 ** 30), 3, 7] * 4, np.int32)
    np.testing.assert_array_equal(op(Tensor(x)).asnumpy(), np.clip(x, 0, 6))


@pytest.mark.parametrize("dtype,row", [(np.int32, (I32, I32)), (np.int8, (I8, I8))])
@pytest.mark.parametrize("slope", [0, 0.5, 2])
def test_2020_leaky_relu_on_ints(dtype, row, slope):
    op = ops.Custom(impl("impl_leaky_relu_int", "leaky_relu"), out_shape=lambda x, _: x, out_dtype=lambda x, _: x,
                    func_type="tbe", reg_info=reg(row, [("negative_slope", "float")]))
    x = np.arange(-16, 16, dtype=dtype).reshape(2, 16)
    k = dtype(slope)  # tvm.const(slope, "int32") truncates, as in CANN
    want = np.maximum(x, x * k) if slope <= 1 else np.minimum(x, x * k)
    np.testing.assert_array_equal(op(Tensor(x), slope).asnumpy(), want)


def test_an_auto_cast_output_error_names_the_instruction_and_the_cast():
    op = ops.Custom(impl("impl_leaky_relu_int", "add_offset"), out_shape=lambda x, _: x, out_dtype=lambda x, _: x,
                    func_type="tbe", reg_info=reg((I32, I32), [("offset", "int")]))
    x = np.arange(32, dtype=np.int32).reshape(2, 16)
    with pytest.raises(TbeLaunchError) as info:
        op(Tensor(x), 3)
    message = str(info.value)
    assert "output 0 is float32 but the op declares int32" in message
    assert "vadds has no int32 on Ascend910" in message and "cast int32 -> float32" in message
    assert 'cast_to(res, "int32")' in message


def test_the_same_op_runs_natively_where_the_chip_has_int32_vadds():
    set_chip("Ascend910B1")
    op = ops.Custom(impl("impl_leaky_relu_int", "add_offset"), out_shape=lambda x, _: x, out_dtype=lambda x, _: x,
                    func_type="tbe", reg_info=reg((I32, I32), [("offset", "int")]))
    x = np.arange(32, dtype=np.int32).reshape(2, 16) + 2 ** 25
    np.testing.assert_array_equal(op(Tensor(x), 3).asnumpy(), x + 3)


def test_api_check_support_follows_the_vmax_fallback():
    from te.platform.cce_conf import api_check_support
    set_chip("Ascend910")
    assert api_check_support("te.lang.cce.vmaxs", "int32") and api_check_support("te.lang.cce.vmins", "int32")
    assert not api_check_support("te.lang.cce.vadds", "int32") and not api_check_support("te.lang.cce.vmaxs", "int16")
    set_chip("Ascend910B1")
    assert api_check_support("te.lang.cce.vadds", "int32") and api_check_support("te.lang.cce.vmaxs", "int16")


def test_ascend910b1_vcmp_takes_int16_as_its_platform_table_lists():
    from npusim.sim import get_chip
    assert get_chip("Ascend910B1").supports("vcmp", "int16")
    assert "Ascend910B1.ini" in get_chip("Ascend910B1").sources["isa.vcmp"]
    assert not get_chip("Ascend910").supports("vcmp", "int16")
