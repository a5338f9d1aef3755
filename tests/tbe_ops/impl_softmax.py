"""Softmax over the last axis from reduce_max, vsub, vexp, sum and vdiv (the classic te.lang.cce recipe)."""
import te.lang.cce
from te import tvm
from te import platform as tbe_platform
from topi import generic


def softmax_compute(x, axis):
    shape = [int(d) for d in x.shape]
    dtype = x.dtype
    if dtype == "float16" and tbe_platform.cce_conf.api_check_support("te.lang.cce.vexp", "float32"):
        x = te.lang.cce.cast_to(x, "float32")
    data_max = te.lang.cce.reduce_max(x, axis=axis, keepdims=True)
    data_max = te.lang.cce.broadcast(data_max, shape)
    data_sub = te.lang.cce.vsub(x, data_max)
    data_exp = te.lang.cce.vexp(data_sub)
    data_sum = te.lang.cce.sum(data_exp, axis=axis, keepdims=True)
    data_sum = te.lang.cce.broadcast(data_sum, shape)
    res = te.lang.cce.vdiv(data_exp, data_sum)
    return te.lang.cce.cast_to(res, dtype)


def softmax(x, y, axis=-1, kernel_name="softmax"):
    shape = x.get("shape")
    dtype = x.get("dtype").lower()
    axis = axis + len(shape) if axis < 0 else axis
    data = tvm.placeholder(shape, name="data", dtype=dtype)
    res = softmax_compute(data, axis)
    with tvm.target.cce():
        sch = generic.auto_schedule(res)
    te.lang.cce.cce_build_code(sch, {"name": kernel_name, "tensor_list": [data, res]})
