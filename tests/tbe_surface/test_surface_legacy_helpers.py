"""Helpers 2019-2022 op files import besides the main checks: alternative parameter kinds, the op name in shape
errors, topi.cce.util's 5HD reduce predicate and small utilities (also served by para_check), and
impl.util.util_select_op_base's op_select_format / get_op_support_info JSON."""
import json

import pytest

from npusim.errors import TbeArgumentError, UnsupportedError


def test_a_tuple_of_kinds_accepts_a_value_passing_any_of_them(tensor_dict):
    from tbe.common.utils import para_check as pc

    @pc.check_op_params(pc.REQUIRED_INPUT, pc.REQUIRED_OUTPUT, (pc.OPTION_ATTR_INT, pc.OPTION_ATTR_LIST_INT),
                        pc.KERNEL_NAME)
    def reduce_op(x, y, axis=None, kernel_name="reduce_op"):
        return axis

    x = tensor_dict([4, 4])
    assert reduce_op(x, x, 1) == 1
    assert reduce_op(x, x, [0, 1]) == [0, 1]
    with pytest.raises(TbeArgumentError, match=r"In op\[reduce_op\], the parameter\[axis\] .* matches none of"):
        reduce_op(x, x, "0")

    @pc.check_op_params(pc.REQUIRED_INPUT, ())
    def empty(x, y):
        return None

    with pytest.raises(TbeArgumentError, match="empty tuple of parameter types"):
        empty(x, 1)


def test_shape_errors_name_the_op_being_built(tensor_dict):
    from tbe.common.utils import para_check as pc
    from tbe.common.utils import shape_util

    @pc.check_op_params(pc.REQUIRED_INPUT, pc.REQUIRED_INPUT, pc.REQUIRED_OUTPUT, pc.KERNEL_NAME)
    def my_add(x, y, z, kernel_name="my_add"):
        shape_util.broadcast_shapes(x["shape"], y["shape"], param_name_input1="x", param_name_input2="y")

    with pytest.raises(TbeArgumentError, match=r"In op\[my_add\], the inputs\[x\]\[y\] could not be broadcast"):
        my_add(tensor_dict([2, 3]), tensor_dict([4]), tensor_dict([2, 3]))
    with pytest.raises(TbeArgumentError, match=r"In op\[given\]"):  # an explicit name wins
        shape_util.broadcast_shapes([2, 3], [4], op_name="given")
    with pytest.raises(TbeArgumentError, match=r"In op\[\], the inputs"):  # outside any op, as CANN
        shape_util.broadcast_shapes([2, 3], [4])


def test_5hd_reduce_predicate(tensor_dict):
    from topi.cce import util
    x = {"shape": [2, 2, 4, 4, 16], "dtype": "float16", "format": "NC1HWC0", "ori_shape": [2, 32, 4, 4],
         "ori_format": "NCHW"}
    assert util.check_and_init_5hdc_reduce_support(x, [1, 4]) is True
    assert util.check_and_init_5hdc_reduce_support(x, [2, 3]) is False
    assert util.check_and_init_5hdc_reduce_support(dict(x, dtype="float32"), [1, 4]) is False
    assert util.check_and_init_5hdc_reduce_support(tensor_dict([2, 32]), 1) is False
    with pytest.raises(TbeArgumentError, match="Original shape needed"):
        util.check_and_init_5hdc_reduce_support({k: v for k, v in x.items() if k != "ori_shape"}, [1, 4])
    with pytest.raises(UnsupportedError, match="does not mask the C0 padding"):
        util.check_and_init_5hdc_reduce_support(dict(x, ori_shape=[2, 20, 4, 4]), (1, 4))
    with pytest.raises(TbeArgumentError, match="tensor dict"):
        util.check_and_init_5hdc_reduce_support([2, 2], [1, 4])


def test_small_legacy_utilities():
    from topi.cce import util
    assert util.get_divisors(12) == [1, 2, 3, 4, 6, 12] and util.get_divisors(0) == []
    assert util.get_device_api_dtype("float16") == 1 and util.get_device_api_dtype("int32") == 2
    with pytest.raises(TbeArgumentError, match="no device-API number"):
        util.get_device_api_dtype("int8")
    assert [util.axis_transfrom_5d(a, "NCHW") for a in (1, -1)] == [1, -2]
    assert [util.axis_transfrom_5d(a, "NHWC") for a in (3, 1, 2, -1, 0)] == [1, 2, 3, -4, 0]
    assert util.check_shape_size([4, 4]) == 16
    assert util.VERSION_SHISI == "smallhisi"


def test_para_check_serves_the_topi_checks_and_dynamic_constants():
    from te.utils import op_utils
    from tbe.common.utils import para_check, shape_util
    from topi.cce import util
    for name in ("check_shape_rule", "check_dtype_rule", "check_tensor_shape_size",
                 "check_and_init_5hdc_reduce_support", "check_input_type"):
        assert getattr(para_check, name) is getattr(util, name)
        assert name in para_check.__all__
    namespace = {}
    exec("from te.utils.op_utils import *", namespace)  # noqa: S102 (op files do exactly this)
    assert "check_shape_rule" in namespace and namespace["MAX_UNKOWN_SHAPE_NUM"] == 2 ** 31 - 1
    assert op_utils.ORIGINAL == "original" and para_check.SPECIAL_SCALAR == "special_scalar"
    shape_util.compare_tensor_dict_key({"dtype": "float16"}, {"dtype": "float16"}, "dtype")


def test_op_select_format_json():
    from impl.util.util_select_op_base import gen_param, get_dynamic_param_in_json
    x = gen_param(classify="input0", name="x", datatype="float16,float", format="ND,NC1HWC0")
    y = gen_param(classify="output0", name="y", datatype="float16,float", format="ND,NC1HWC0",
                  unknownshape_format="ND,ND")
    described = json.loads(get_dynamic_param_in_json([x, y]))
    assert described == {"input0": {"name": "x", "dtype": "float16,float", "format": "ND,NC1HWC0"},
                         "output0": {"name": "y", "dtype": "float16,float", "format": "ND,NC1HWC0",
                                     "unknownshape_format": "ND,ND"}}
    with pytest.raises(TbeArgumentError, match="lists 2 dtype"):
        gen_param("input0", "x", "float16,float", "ND")
    with pytest.raises(TbeArgumentError, match="gen_param"):
        get_dynamic_param_in_json([{"name": "x"}])


def test_op_support_info_json():
    from impl.util.util_select_op_base import ReduceInput, ReduceOutput, SplitInput, SplitOutput, get_op_cal_info
    split = [[SplitInput([0, [0], [-1], [-1]], [1, [0], [-1], [-1]]), SplitOutput([0, [0]])]]
    reduce = [[ReduceInput([0, [1]]), ReduceOutput([0, 1, False])]]
    info = json.loads(get_op_cal_info(split, reduce, 0, 0))["_op_slice_info"]
    assert info["splitMaps"][0]["inputList"][1] == {"idx": 1, "axis": [0], "headOverLap": [-1], "tailOverLap": [-1]}
    assert info["splitMaps"][0]["outputList"] == [{"idx": 0, "axis": [0]}]
    assert info["reduceMaps"][0]["outputList"] == [{"idx": 0, "reduceType": 1, "isAtomic": False}]
    assert info["l1FusionEnable"] == 0 and info["minTbeL1Space"] == 0
    with pytest.raises(TbeArgumentError, match="SplitInput"):
        SplitInput([0, [0]])
    with pytest.raises(TbeArgumentError, match="ReduceOutput"):
        ReduceOutput([0, 1])
    with pytest.raises(TbeArgumentError, match="get_op_cal_info"):
        get_op_cal_info([[SplitOutput([0, [0]]), SplitOutput([0, [0]])]])
