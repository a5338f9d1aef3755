"""LeakyRelu in the 2020 te.lang.cce style (topi generic, fusion_manager, util checks)."""
from functools import reduce as functools_reduce

import te.lang.cce
from te import tvm
from te.platform.fusion_manager import fusion_manager
from topi import generic
from topi.cce import util


@fusion_manager.register("leaky_relu")
def leaky_relu_compute(x, y, negative_slope=0, kernel_name="leaky_relu"):
    dtype = x.dtype.lower()
    if negative_slope == 0:
        if dtype == "float32":
            x = te.lang.cce.cast_to(x, "float16")
            return te.lang.cce.cast_to(te.lang.cce.vrelu(x), "float32")
        return te.lang.cce.vrelu(x)
    return te.lang.cce.vlrelu(x, negative_slope)


@util.check_input_type(dict, dict, (int, float), str)
def leaky_relu(x, y, negative_slope=0, kernel_name="leaky_relu"):
    shape = x.get("shape")
    dtype = x.get("dtype").lower()
    util.check_shape_rule(shape)
    util.check_tensor_shape_size(shape)
    util.check_kernel_name(kernel_name)
    util.check_dtype_rule(dtype, ("float16", "float32"))
    fused = functools_reduce(lambda a, b: a * b, shape)
    data = tvm.placeholder((fused,), name="data", dtype=dtype)
    res = leaky_relu_compute(data, y, negative_slope, kernel_name)
    with tvm.target.cce():
        sch = generic.auto_schedule(res)
    config = {"name": kernel_name, "tensor_list": [data, res]}
    te.lang.cce.cce_build_code(sch, config)
