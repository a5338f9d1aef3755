"""SoftmaxV2 in the 2020 te.lang.cce style: fusion_manager compute, util checks, reduce_max / vsub / vexp /
sum / vdiv with broadcast back, float32 when the chip's vexp has it."""
import te.lang.cce
from te import tvm
from te import platform as tbe_platform
from te.platform.fusion_manager import fusion_manager
from topi import generic
from topi.cce import util


@fusion_manager.register("softmax_v2")
def softmax_v2_compute(input_x, output_y, axis=-1, kernel_name="softmax_v2"):
    shape = te.lang.cce.util.shape_to_list(input_x.shape)
    dtype = input_x.dtype
    if dtype == "float16" and tbe_platform.cce_conf.api_check_support("te.lang.cce.vexp", "float32"):
        input_x = te.lang.cce.cast_to(input_x, "float32")
    data_max = te.lang.cce.reduce_max(input_x, axis=axis, keepdims=True)
    data_max = te.lang.cce.broadcast(data_max, shape)
    data_sub = te.lang.cce.vsub(input_x, data_max)
    data_exp = te.lang.cce.vexp(data_sub)
    data_sum = te.lang.cce.sum(data_exp, axis=axis, keepdims=True)
    data_sum = te.lang.cce.broadcast(data_sum, shape)
    res = te.lang.cce.vdiv(data_exp, data_sum)
    return te.lang.cce.cast_to(res, dtype)


@util.check_input_type(dict, dict, (int, list, tuple), str)
def softmax_v2(input_x, output_y, axis=-1, kernel_name="softmax_v2"):
    shape = input_x.get("shape")
    dtype = input_x.get("dtype").lower()
    util.check_kernel_name(kernel_name)
    util.check_shape_rule(shape)
    util.check_tensor_shape_size(shape)
    util.check_dtype_rule(dtype, ("float16", "float32"))
    axis = list(axis) if isinstance(axis, (list, tuple)) else [axis]
    axis = util.axis_check(len(shape), axis)
    data = tvm.placeholder(shape, name="data", dtype=dtype)
    res = softmax_v2_compute(data, output_y, axis, kernel_name)
    with tvm.target.cce():
        sch = generic.auto_schedule(res)
    config = {"print_ir": False, "name": kernel_name, "tensor_list": [data, res]}
    te.lang.cce.cce_build_code(sch, config)
