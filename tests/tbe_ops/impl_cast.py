"""Cast round trips: x (float32) → float16 → int32 (round) → float32, plus a floor branch."""
import te.lang.cce
from te import tvm
from topi import generic


def cast_round_trip(x, y, kernel_name="cast_round_trip"):
    data = tvm.placeholder(x.get("shape"), name="data", dtype=x.get("dtype").lower())
    half = te.lang.cce.cast_to(data, "float16")
    rounded = te.lang.cce.round(half)
    res = te.lang.cce.cast_to(rounded, "float32")
    with tvm.target.cce():
        sch = generic.auto_schedule(res)
    te.lang.cce.cce_build_code(sch, {"name": kernel_name, "tensor_list": [data, res]})


def floor_to_int(x, y, kernel_name="floor_to_int"):
    data = tvm.placeholder(x.get("shape"), name="data", dtype=x.get("dtype").lower())
    res = te.lang.cce.floor(data)
    with tvm.target.cce():
        sch = generic.auto_schedule(res)
    te.lang.cce.cce_build_code(sch, {"name": kernel_name, "tensor_list": [data, res]})
