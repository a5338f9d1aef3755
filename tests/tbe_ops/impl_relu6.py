"""Relu6 in the 2020 te.lang.cce style: min(max(x, 0), 6) with vmaxs / vmins and a tvm.const of the input dtype
(CANN's op-info for Ascend910 lists int32 for Relu6)."""
from functools import reduce as functools_reduce

import te.lang.cce
from te import tvm
from te.platform.fusion_manager import fusion_manager
from te.utils.op_utils import KERNEL_NAME, REQUIRED_INPUT, REQUIRED_OUTPUT, check_dtype, check_op_params, \
    check_shape
from topi import generic


@fusion_manager.register("relu6")
def relu6_compute(input_x, output_y, kernel_name="relu6"):
    floor_zero = te.lang.cce.vmaxs(input_x, tvm.const(0, input_x.dtype))
    return te.lang.cce.vmins(floor_zero, tvm.const(6, input_x.dtype))


@check_op_params(REQUIRED_INPUT, REQUIRED_OUTPUT, KERNEL_NAME)
def relu6(input_x, output_y, kernel_name="relu6"):
    shape = input_x.get("shape")
    dtype = input_x.get("dtype").lower()
    check_shape(shape, param_name="input_x")
    check_dtype(dtype, ("int32", "float16", "float32"), param_name="input_x")
    flat = (functools_reduce(lambda a, b: a * b, shape),)
    data = tvm.placeholder(flat, name="data", dtype=dtype)
    res = relu6_compute(data, output_y, kernel_name)
    with tvm.target.cce():
        sch = generic.auto_schedule(res)
    te.lang.cce.cce_build_code(sch, {"name": kernel_name, "tensor_list": [data, res]})
