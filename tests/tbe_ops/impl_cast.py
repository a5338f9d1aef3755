"""Cast round trips in the te.lang.cce style (op_utils checks, fusion_manager): x (float32) -> float16 ->
int32 (round, half to even) -> float32, and Floor to int32."""
import te.lang.cce
from te import tvm
from te.platform.fusion_manager import fusion_manager
from te.utils.op_utils import *
from topi import generic


@fusion_manager.register("cast_round_trip")
def cast_round_trip_compute(data, y, kernel_name="cast_round_trip"):
    half = te.lang.cce.cast_to(data, "float16")
    rounded = te.lang.cce.round(half)
    return te.lang.cce.cast_to(rounded, "float32")


@check_op_params(REQUIRED_INPUT, REQUIRED_OUTPUT, KERNEL_NAME)
def cast_round_trip(x, y, kernel_name="cast_round_trip"):
    shape = x.get("shape")
    dtype = x.get("dtype").lower()
    check_shape(shape, param_name="x")
    check_dtype(dtype, ("float32",), param_name="x")
    data = tvm.placeholder(shape, name="data", dtype=dtype)
    res = cast_round_trip_compute(data, y, kernel_name)
    with tvm.target.cce():
        sch = generic.auto_schedule(res)
    te.lang.cce.cce_build_code(sch, {"name": kernel_name, "tensor_list": [data, res]})


@fusion_manager.register("floor")
def floor_compute(data, y, kernel_name="floor_to_int"):
    return te.lang.cce.floor(data)


@check_op_params(REQUIRED_INPUT, REQUIRED_OUTPUT, KERNEL_NAME)
def floor_to_int(x, y, kernel_name="floor_to_int"):
    shape = x.get("shape")
    dtype = x.get("dtype").lower()
    check_shape(shape, param_name="x")
    check_dtype(dtype, ("float16", "float32"), param_name="x")
    check_dtype(y.get("dtype").lower(), ("int32",), param_name="y")
    data = tvm.placeholder(shape, name="data", dtype=dtype)
    res = floor_compute(data, y, kernel_name)
    with tvm.target.cce():
        sch = generic.auto_schedule(res)
    te.lang.cce.cce_build_code(sch, {"name": kernel_name, "tensor_list": [data, res]})
