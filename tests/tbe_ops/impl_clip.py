"""ClipByValue with scalar bounds as attributes: vmaxs then vmins."""
import te.lang.cce
from te import tvm
from te.utils.op_utils import *
from topi import generic


@check_op_params(REQUIRED_INPUT, REQUIRED_OUTPUT, REQUIRED_ATTR_FLOAT, REQUIRED_ATTR_FLOAT, KERNEL_NAME)
def clip(x, y, clip_min, clip_max, kernel_name="clip"):
    if clip_min > clip_max:
        raise RuntimeError("clip_min must not exceed clip_max")
    data = tvm.placeholder(x.get("shape"), name="data", dtype=x.get("dtype").lower())
    res = te.lang.cce.vmins(te.lang.cce.vmaxs(data, clip_min), clip_max)
    with tvm.target.cce():
        sch = generic.auto_schedule(res)
    te.lang.cce.cce_build_code(sch, {"name": kernel_name, "tensor_list": [data, res]})
