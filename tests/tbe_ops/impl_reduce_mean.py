"""ReduceMean with keepdims: sum then multiply by 1/n, as the te.lang.cce op does."""
import te.lang.cce
from te import tvm
from te.utils.op_utils import *
from topi import generic


def reduce_mean_compute(x, axes, keepdims):
    shape = [int(d) for d in x.shape]
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
def reduce_mean(x, y, axes, keepdims=False, kernel_name="reduce_mean"):
    shape = x.get("shape")
    dtype = x.get("dtype").lower()
    check_shape(shape, param_name="x")
    check_dtype(dtype, ("float16", "float32"), param_name="x")
    axes = [a + len(shape) if a < 0 else a for a in axes]
    data = tvm.placeholder(shape, name="data", dtype=dtype)
    res = reduce_mean_compute(data, axes, keepdims)
    with tvm.target.cce():
        sch = generic.auto_schedule(res)
    te.lang.cce.cce_build_code(sch, {"name": kernel_name, "tensor_list": [data, res]})
