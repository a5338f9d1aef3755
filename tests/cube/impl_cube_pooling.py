"""MaxPool / AvgPool op files in the CANN 2020 style (canndev ``impl/max_pool.py`` / ``avg_pool.py`` shape): an
NC1HWC0 input, ksize / strides in NCHW order, a padding mode, ``pooling2d``, ``auto_schedule``,
``cce_build_code``."""
import te.lang.cce
from te import tvm
from te.utils.op_utils import *
from topi import generic


def _pool(x, ksize, strides, padding, mode, kernel_name):
    shape = x["shape"]
    check_shape(shape, min_rank=5, max_rank=5, param_name="x")
    check_dtype(x["dtype"].lower(), ("float16",), param_name="x")
    data = tvm.placeholder(shape, name="tensor_in", dtype=x["dtype"].lower())
    res = te.lang.cce.pooling2d(data, (ksize[2], ksize[3]), (strides[2], strides[3]), mode, padding)
    with tvm.target.cce():
        sch = generic.auto_schedule(res)
    te.lang.cce.cce_build_code(sch, {"name": kernel_name, "tensor_list": [data, res]})


@check_op_params(REQUIRED_INPUT, REQUIRED_OUTPUT, REQUIRED_ATTR_LIST_INT, REQUIRED_ATTR_LIST_INT,
                 REQUIRED_ATTR_STR, KERNEL_NAME)
def max_pool(x, y, ksize, strides, padding, kernel_name="max_pool"):
    _pool(x, ksize, strides, padding, "MAX", kernel_name)


@check_op_params(REQUIRED_INPUT, REQUIRED_OUTPUT, REQUIRED_ATTR_LIST_INT, REQUIRED_ATTR_LIST_INT,
                 REQUIRED_ATTR_STR, KERNEL_NAME)
def avg_pool(x, y, ksize, strides, padding, kernel_name="avg_pool"):
    _pool(x, ksize, strides, padding, "AVG", kernel_name)
