import json

import pytest

from mindspore.ops import CustomRegOp, DataType, custom_info_register, TBERegOp, AiCPURegOp


def test_get_op_info_is_mindspores_dict():
    info = CustomRegOp("MyOp").input(0, "x").output(0, "y").attr("bias", "required", "float") \
        .dtype_format(DataType.F32_Default, DataType.F32_Default).target("Ascend").get_op_info()
    assert list(info) == ["op_name", "inputs", "outputs", "attr", "fusion_type", "dtype_format", "target"]
    assert info == {"op_name": "MyOp", "inputs": [{"index": 0, "name": "x", "paramType": "required"}],
                    "outputs": [{"index": 0, "name": "y", "paramType": "required"}],
                    "attr": [{"name": "bias", "paramType": "required", "type": "float"}],
                    "fusion_type": "OPAQUE",
                    "dtype_format": [(("float32", "DefaultFormat"), ("float32", "DefaultFormat"))],
                    "target": "Ascend"}
    assert CustomRegOp().get_op_info()["op_name"] == "Custom"


def test_seed_aicpu_builder_chain():
    info = CustomRegOp("Dropout2D").fusion_type("OPAQUE").input(0, "x", "required").output(0, "y", "required") \
        .output(1, "mask", "required").attr("keep_prob", "required", "float") \
        .attr("cust_aicpu", "required", "str", "mindspore_aicpu_kernels") \
        .dtype_format(DataType.F16_Default, DataType.F16_Default, DataType.BOOL_Default).target("Ascend") \
        .get_op_info()
    assert info["attr"][1] == {"name": "cust_aicpu", "paramType": "required", "type": "str",
                               "defaultValue": "mindspore_aicpu_kernels"}
    assert info["dtype_format"][0][2] == ("bool", "DefaultFormat")


def test_datatype_constants():
    assert DataType.F16_Default == ("float16", "DefaultFormat")
    assert DataType.F16_5HD == ("float16", "NC1HWC0")
    assert DataType.I32_FracNZ == ("int32", "FRACTAL_NZ")
    assert DataType.U64_NCHW == ("uint64", "NCHW")
    assert DataType.None_None == ("", "")
    assert DataType.BOOL_Default == ("bool", "DefaultFormat")


def test_dtype_format_count_must_match():
    op = CustomRegOp().input(0, "a").input(1, "b").output(0, "c")
    with pytest.raises(ValueError, match="size of 'args' is 2"):
        op.dtype_format(DataType.F32_Default, DataType.F32_Default)
    with pytest.raises(ValueError):
        op.dtype_format("float32", DataType.F32_Default, DataType.F32_Default)


def test_bad_argument_types():
    with pytest.raises(TypeError):
        CustomRegOp(3)
    with pytest.raises(TypeError):
        CustomRegOp().input("0", "x")


def test_v1_builders_are_accepted():
    tbe = TBERegOp("Add").fusion_type("ELEMWISE").async_flag(False).binfile_name("add.so").compute_cost(10) \
        .kernel_name("add").partial_flag(True).attr("alpha", "required", "float", "all") \
        .input(0, "x", False, "required", "all").output(0, "y", False, "required", "all") \
        .dtype_format(DataType.F16_Default, DataType.F16_Default).get_op_info()
    assert tbe["op_name"] == "Add" and tbe["fusion_type"] == "ELEMWISE" and tbe["kernel_name"] == "add"
    aicpu = AiCPURegOp("Cast").input(0, "x", "required").output(0, "y", "required") \
        .attr("dst_type", "int", value=3).dtype_format(DataType.F32_Default, DataType.F16_Default).get_op_info()
    assert aicpu["attr"] == [{"name": "dst_type", "type": "int", "value": 3}]


def test_custom_info_register_keeps_function():
    info = CustomRegOp().input(0, "x").output(0, "y").get_op_info()

    @custom_info_register(info)
    def square(x):
        """doc"""
        return x * x
    assert square.reg_info == [info] and square.__name__ == "square" and square.__doc__ == "doc"
    assert square(3) == 9
    assert json.loads(json.dumps(info)) == info


def test_attr_value_is_fixed_for_aicpu_but_an_allowed_values_spec_for_tbe():
    from npusim.custom.attrs import bind_attrs
    from npusim.errors import OpValueError
    reg = TBERegOp("Add3").attr("bias", "required", "float", "all").attr("mode", "optional", "int", "all",
                                                                         default_value="2").get_op_info()
    attrs = bind_attrs("Add3", reg, (1.5,), "tbe")
    assert attrs.names == ("bias", "mode") and attrs.values == (1.5, 2)
    with pytest.raises(OpValueError, match="attribute 'bias' is required"):
        bind_attrs("Add3", reg, (), "tbe")
    fixed = AiCPURegOp("Cast").attr("dst_type", "int", value=3).get_op_info()
    assert bind_attrs("Cast", fixed, (), "aicpu").values == (3,)
    with pytest.raises(OpValueError, match="more argument"):
        bind_attrs("Cast", fixed, (7,), "aicpu")
