"""ReduceMeanD with keepdims in the te.lang.cce style (fusion_manager, op_utils checks): sum in float32, then a
multiply by 1/n, cast back.  Separated axes (e.g. [0, 2]) work as in BatchNorm's reductions."""
import te.lang.cce
from te import tvm
from te.platform.fusion_manager import fusion_manager
from te.utils.op_utils import *
from topi import generic
from topi.cce import util


@fusion_manager.register("reduce_mean_d")
def reduce_mean_d_compute(x, y, axes, keepdims, kernel_name="reduce_mean_d"):
    shape = te.lang.cce.util.shape_to_list(x.shape)
    count = 1
    for axis in axes:
        count *= shape[axis]
    dtype = x.dtype
    if dtype == "float16":
        x = te.lang.cce.cast_to(x, "float32")
    summed = te.lang.cce.sum(x, axis=axes, keepdims=keepdims)
    res = te.lang.cce.vmuls(summed, 1.0 / count)
    return te.lang.cce.cast_to(res, dtype)


@check_op_params(REQUIRED_INPUT, REQUIRED_OUTPUT, REQUIRED_ATTR_LIST_INT, OPTION_ATTR_BOOL, KERNEL_NAME)
def reduce_mean_d(x, y, axes, keepdims=False, kernel_name="reduce_mean_d"):
    shape = x.get("shape")
    dtype = x.get("dtype").lower()
    check_shape(shape, param_name="x")
    check_dtype(dtype, ("float16", "float32"), param_name="x")
    axes = util.axis_check(len(shape), axes)
    data = tvm.placeholder(shape, name="data", dtype=dtype)
    res = reduce_mean_d_compute(data, y, axes, keepdims, kernel_name)
    with tvm.target.cce():
        sch = generic.auto_schedule(res)
    te.lang.cce.cce_build_code(sch, {"name": kernel_name, "tensor_list": [data, res]})
