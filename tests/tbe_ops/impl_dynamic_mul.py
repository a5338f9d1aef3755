"""Mul in the 2022 dynamic-shape style: classify, variable_shape under tbe.compute(), one schedule per pattern."""
from tbe import dsl
from tbe import tvm
import tbe
from tbe.common.register import register_operator
from tbe.common.utils import para_check
from tbe.common.utils import shape_util
from tbe.dsl.classify import OpPatternMode  # noqa: F401  (imported the way real ops do)


def mul_compute(input_x, input_y, output_z, kernel_name="mul"):
    shape_x = shape_util.shape_to_list(input_x.shape)
    shape_y = shape_util.shape_to_list(input_y.shape)
    shape_x, shape_y, shape_max = shape_util.broadcast_shapes(shape_x, shape_y, param_name_input1="x",
                                                              param_name_input2="y")
    input_x = dsl.broadcast(input_x, shape_max)
    input_y = dsl.broadcast(input_y, shape_max)
    return dsl.vmul(input_x, input_y)


@register_operator("Mul")
@para_check.check_op_params(para_check.REQUIRED_INPUT, para_check.REQUIRED_INPUT, para_check.REQUIRED_OUTPUT,
                            para_check.KERNEL_NAME)
def mul(input_x, input_y, output_z, kernel_name="mul"):
    dtype = input_x.get("dtype").lower()
    para_check.check_dtype(dtype, ("float16", "float32", "int32"), param_name="x")
    ins = dsl.classify([input_x, input_y], OpPatternMode.ELEWISE_WITH_BROADCAST)
    schedules, tensors = [], []
    for (_x, _y) in ins:
        with tbe.compute():
            shape_x, shape_y = shape_util.variable_shape([_x, _y])
            data_x = tvm.placeholder(shape_x, name="data_x", dtype=dtype)
            data_y = tvm.placeholder(shape_y, name="data_y", dtype=dtype)
            res = mul_compute(data_x, data_y, output_z, kernel_name)
            tensors.append((data_x, data_y, res))
        with tvm.target.cce():
            schedules.append(dsl.auto_schedule(res))
    config = {"name": kernel_name, "tensor_list": tensors}
    dsl.build(schedules, config)
