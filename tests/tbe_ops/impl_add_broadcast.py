"""Add with broadcasting, written as 2022 tbe.dsl op files are (para_check, shape_util, dsl.broadcast)."""
from tbe import dsl
from tbe import tvm
from tbe.common.register import register_op_compute
from tbe.common.utils import para_check
from tbe.common.utils import shape_util


@register_op_compute("Add")
def add_compute(input_x, input_y, output_z, kernel_name="add"):
    shape_x = shape_util.shape_to_list(input_x.shape)
    shape_y = shape_util.shape_to_list(input_y.shape)
    shape_x, shape_y, shape_max = shape_util.broadcast_shapes(shape_x, shape_y, param_name_input1="input_x",
                                                              param_name_input2="input_y")
    input_x = dsl.broadcast(input_x, shape_max)
    input_y = dsl.broadcast(input_y, shape_max)
    return dsl.vadd(input_x, input_y)


@para_check.check_op_params(para_check.REQUIRED_INPUT, para_check.REQUIRED_INPUT, para_check.REQUIRED_OUTPUT,
                            para_check.KERNEL_NAME)
def add(input_x, input_y, output_z, kernel_name="add"):
    shape_x = input_x.get("shape")
    shape_y = input_y.get("shape")
    check_list = ("float16", "float32", "int32")
    dtype = input_x.get("dtype").lower()
    para_check.check_dtype(dtype, check_list, param_name="input_x")
    para_check.check_shape(shape_x, param_name="input_x")
    para_check.check_shape(shape_y, param_name="input_y")
    shape_x, shape_y, _ = shape_util.broadcast_shapes(shape_x, shape_y, param_name_input1="input_x",
                                                      param_name_input2="input_y")
    data_x = tvm.placeholder(shape_x, name="data_1", dtype=dtype)
    data_y = tvm.placeholder(shape_y, name="data_2", dtype=dtype)
    res = add_compute(data_x, data_y, output_z, kernel_name)
    with tvm.target.cce():
        schedule = dsl.auto_schedule(res)
    config = {"name": kernel_name, "tensor_list": (data_x, data_y, res)}
    dsl.build(schedule, config)
