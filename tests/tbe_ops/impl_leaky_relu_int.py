"""LeakyRelu of the 2020 op library that also takes int32/int8: relu through vmax(x, broadcast(0)) keeps int32, a
slope through vmuls (auto-cast) and cast_to back to the input dtype."""
from functools import reduce as reduce_ins

import te.lang.cce
from te import tvm
from te.platform.fusion_manager import fusion_manager
from topi import generic
from topi.cce import util


@fusion_manager.register("leaky_relu")
def leaky_relu_compute(x, y, negative_slope=0, kernel_name="leaky_relu"):
    inp_dtype = x.dtype.lower()
    if negative_slope == 0:
        if inp_dtype in ("float32", "int32"):
            zeros = te.lang.cce.broadcast(tvm.const(0, inp_dtype), x.shape)
            res = te.lang.cce.vmax(x, zeros)
        else:
            res = te.lang.cce.vrelu(x)
        return te.lang.cce.cast_to(res, inp_dtype)
    scaled = te.lang.cce.vmuls(x, tvm.const(negative_slope, dtype=inp_dtype))
    if inp_dtype not in ("float16", "float32"):
        scaled = te.lang.cce.cast_to(scaled, inp_dtype)
    res = te.lang.cce.vmax(x, scaled) if negative_slope <= 1 else te.lang.cce.vmin(x, scaled)
    return te.lang.cce.cast_to(res, inp_dtype)


@util.check_input_type(dict, dict, (int, float), str)
def leaky_relu(x, y, negative_slope=0, kernel_name="leaky_relu"):
    shape = x.get("shape")
    dtype = x.get("dtype").lower()
    util.check_kernel_name(kernel_name)
    util.check_shape_rule(shape)
    util.check_dtype_rule(dtype, ("float16", "float32", "int32", "int8"))
    data = tvm.placeholder((reduce_ins(lambda a, b: a * b, shape),), name="data", dtype=dtype)
    with tvm.target.cce():
        res = leaky_relu_compute(data, y, negative_slope, kernel_name)
        sch = generic.auto_schedule(res)
    te.lang.cce.cce_build_code(sch, {"name": kernel_name, "tensor_list": [data, res]})


def add_offset(x, y, offset, kernel_name="add_offset"):
    """x + offset with vadds and no cast back: int32 vadds is computed in float32 on chips without it."""
    data = tvm.placeholder(x["shape"], name="data", dtype=x["dtype"])
    res = te.lang.cce.vadds(data, tvm.const(offset, x["dtype"]))
    with tvm.target.cce():
        sch = generic.auto_schedule(res)
    te.lang.cce.cce_build_code(sch, {"name": kernel_name, "tensor_list": [data, res]})
