"""Issue 15 item 4: what real cube op files need from npusim's TBE surface and the Custom tbe path."""
import numpy as np
import pytest

from mindspore import Tensor, ops
from mindspore.ops import CustomRegOp, DataType

from npusim.errors import KernelSelectionError, TbeArgumentError

F16, F32 = DataType.F16_Default, DataType.F32_Default


def test_placeholder_attrs_are_kept_read_back_and_assignable():
    from te import tvm
    x = tvm.placeholder((4, 16), name="x", dtype="float16", attrs={"format": "ND", "ori_shape": [4, 16]})
    assert x.op.attrs["format"].value == "ND"
    assert [d.value for d in x.op.attrs["ori_shape"]] == [4, 16]
    x.op.attrs["format"] = "FRACTAL_NZ"
    assert x.op.attrs["format"].value == "FRACTAL_NZ"
    plain = tvm.placeholder((4,), name="p", dtype="float16")
    assert len(plain.op.attrs) == 0


def test_te_platform_cce_policy_and_error_manager_package():
    from te.platform import cce_policy
    from te.platform.cce_policy import get_L1_info, set_L1_info
    from te.utils.error_manager import error_manager_util, error_manager_vector  # noqa: F401
    from te.utils.error_manager.error_manager_util import get_error_message
    assert get_L1_info("L1_fusion_enabled") is False and get_L1_info("op_L1_space") == -1
    assert cce_policy.disableL2() is True
    with pytest.raises(TbeArgumentError, match="not support"):
        set_L1_info("no_such_key", 1)
    assert "E80000" in get_error_message({"errCode": "E80000", "detailed_cause": "bad"})
    with pytest.raises(TbeArgumentError, match="conv2d"):
        from te.utils.error_manager import error_manager_conv2d
        error_manager_conv2d.raise_err_input_value_invalid("conv2d", "strides", "1", "0")


def test_op_utils_star_import_brings_fusion_manager():
    namespace = {}
    exec("from te.utils.op_utils import *", namespace)
    assert "fusion_manager" in namespace and "check_op_params" in namespace


def test_check_conv_shape_checks_limits_and_channels():
    import te.lang.cce
    shape_in, shape_w = te.lang.cce.check_conv_shape([1, 32, 14, 14], [64, 32, 3, 3], 1, 1, 1, 1, 1, 1,
                                                     "float16", "float16")
    assert shape_in == [1, 32, 14, 14] and shape_w == [64, 32, 3, 3]
    with pytest.raises(TbeArgumentError, match="stride"):
        te.lang.cce.check_conv_shape([1, 32, 14, 14], [64, 32, 3, 3], 0, 0, 0, 0, 64, 1, "float16", "float16")
    with pytest.raises(TbeArgumentError, match="channels"):
        te.lang.cce.check_conv_shape([1, 16, 14, 14], [64, 32, 3, 3], 0, 0, 0, 0, 1, 1, "float16", "float16")


def _echo_impl(seen):
    """An impl that records what it was given and copies x (an elementwise op with an optional second input)."""
    import te.lang.cce
    from te import tvm

    def echo(x, y_opt, out, scale=1.0, kernel_name="echo"):
        seen.append((y_opt, scale))
        data = tvm.placeholder(x["shape"], name="data", dtype=x["dtype"])
        res = te.lang.cce.vmuls(data, scale)
        sch = te.lang.cce.auto_schedule(res)
        te.lang.cce.cce_build_code(sch, {"name": kernel_name, "tensor_list": [data, res], "need_build": False})

    return echo


def _echo_reg(rows):
    builder = CustomRegOp("Echo").input(0, "x").input(1, "y", "optional").output(0, "out") \
        .attr("scale", "optional", "float")
    for row in rows:
        builder = builder.dtype_format(*row)
    return builder.target("Ascend").get_op_info()


def test_left_out_optional_input_is_none_and_attrs_are_not_tensors():
    seen = []
    op = ops.Custom(_echo_impl(seen), out_shape=(4, 16), out_dtype="float16", func_type="tbe",
                    reg_info=_echo_reg([(F16, F16, F16)]))
    x = np.arange(64, dtype=np.float16).reshape(4, 16)
    out = op(Tensor(x), 2.0).asnumpy()
    assert seen == [(None, 2.0)]
    np.testing.assert_array_equal(out, x * 2)


def test_selection_matches_output_dtypes_too():
    seen = []
    reg = _echo_reg([(F16, F16, F32), (F16, F16, F16)])
    op = ops.Custom(_echo_impl(seen), out_shape=(4, 16), out_dtype="float16", func_type="tbe", reg_info=reg)
    assert op(Tensor(np.ones((4, 16), np.float16)), 3.0).asnumpy().dtype == np.float16
    bad = ops.Custom(_echo_impl(seen), out_shape=(4, 16), out_dtype="int32", func_type="tbe", reg_info=reg)
    with pytest.raises(KernelSelectionError, match="output dtypes"):
        bad(Tensor(np.ones((4, 16), np.float16)), 3.0)
