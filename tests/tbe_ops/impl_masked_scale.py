"""Ops whose mask placeholder is declared bool or uint8 while the framework hands the mask over as a bool tensor."""
import te.lang.cce
from te import tvm
from te.utils.op_utils import KERNEL_NAME, REQUIRED_INPUT, REQUIRED_OUTPUT, check_dtype, check_op_params
from topi import generic


@check_op_params(REQUIRED_INPUT, REQUIRED_INPUT, REQUIRED_OUTPUT, KERNEL_NAME)
def masked_scale(mask, x, y, kernel_name="masked_scale"):
    """y = x where mask else 0; the mask placeholder is bool."""
    shape = x.get("shape")
    dtype = x.get("dtype").lower()
    check_dtype(mask.get("dtype").lower(), ("bool", "int8", "uint8"), param_name="mask")
    data_mask = tvm.placeholder(shape, name="mask", dtype="bool")
    data_x = tvm.placeholder(shape, name="x", dtype=dtype)
    mask_value = te.lang.cce.cast_to(data_mask, dtype)
    res = te.lang.cce.vmul(mask_value, data_x)
    with tvm.target.cce():
        sch = generic.auto_schedule(res)
    te.lang.cce.cce_build_code(sch, {"name": kernel_name, "tensor_list": [data_mask, data_x, res]})


@check_op_params(REQUIRED_INPUT, REQUIRED_OUTPUT, KERNEL_NAME)
def mask_to_half(mask, y, kernel_name="mask_to_half"):
    """y = float16(mask); the mask placeholder is uint8."""
    data_mask = tvm.placeholder(mask.get("shape"), name="mask", dtype="uint8")
    res = te.lang.cce.cast_to(data_mask, "float16")
    with tvm.target.cce():
        sch = generic.auto_schedule(res)
    te.lang.cce.cce_build_code(sch, {"name": kernel_name, "tensor_list": [data_mask, res]})
