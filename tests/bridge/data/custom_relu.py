"""A CANN-style TBE op file: ReLU as max(x, 0) in the TBE DSL (vmaxs: exact in float32, unlike vrelu, which
Ascend 910 computes in float16)."""
from tbe import tvm
import tbe.dsl
from tbe.common.utils import para_check


@para_check.check_op_params(para_check.REQUIRED_INPUT, para_check.REQUIRED_OUTPUT, para_check.KERNEL_NAME)
def custom_relu(x, y, kernel_name="custom_relu"):
    """y = max(x, 0) for a float16 / float32 x."""
    dtype = x.get("dtype").lower()
    para_check.check_dtype(dtype, ("float16", "float32"), param_name="x")
    data = tvm.placeholder(x.get("shape"), name="data", dtype=dtype)
    res = tbe.dsl.vmaxs(data, tvm.const(0, dtype))
    with tvm.target.cce():
        schedule = tbe.dsl.auto_schedule(res)
    tbe.dsl.build(schedule, {"name": kernel_name, "tensor_list": [data, res]})
