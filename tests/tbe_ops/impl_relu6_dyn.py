"""Relu6 of the 2022 dynamic-shape library: classify + variable_shape under tbe.compute(), fused to one dim."""
import functools

from impl.util.platform_adapter import OpPatternMode, classify, para_check, register_operator, \
    register_operator_compute, shape_util, tbe, tvm


@register_operator_compute("Relu6", op_mode="dynamic", support_fusion=True)
def relu6_compute(input_x, output_y, kernel_name="relu6"):
    floor_zero = tbe.vmaxs(input_x, tvm.const(0, input_x.dtype))
    return tbe.vmins(floor_zero, tvm.const(6, input_x.dtype))


@register_operator("Relu6")
@para_check.check_op_params(para_check.REQUIRED_INPUT, para_check.REQUIRED_OUTPUT, para_check.KERNEL_NAME)
def relu6(input_x, output_y, kernel_name="relu6"):
    dtype = input_x.get("dtype").lower()
    para_check.check_dtype(dtype, ("int32", "float16", "float32"), param_name="input_x")
    schedules, tensors = [], []
    for (_x,) in classify([input_x], OpPatternMode.ELEWISE):
        with tbe.compute():
            (shape,) = shape_util.variable_shape([_x])
            data = tvm.placeholder([functools.reduce(lambda a, b: a * b, shape)], name="data", dtype=dtype)
            res = relu6_compute(data, output_y, kernel_name)
            tensors.append([data, res])
        with tvm.target.cce():
            schedules.append(tbe.auto_schedule(res))
    tbe.build(schedules, {"name": kernel_name, "tensor_list": tensors})
