"""Maximum through compare and select: vcmp(x, y, 'gt') then vsel."""
import te.lang.cce
from te import tvm
from topi import generic


def select_max(x, y, z, kernel_name="select_max"):
    dtype = x.get("dtype").lower()
    data_x = tvm.placeholder(x.get("shape"), name="data_x", dtype=dtype)
    data_y = tvm.placeholder(y.get("shape"), name="data_y", dtype=dtype)
    condition = te.lang.cce.vcmp(data_x, data_y, "gt", "bool")
    res = te.lang.cce.vsel(condition, data_x, data_y)
    with tvm.target.cce():
        sch = generic.auto_schedule(res)
    te.lang.cce.cce_build_code(sch, {"name": kernel_name, "tensor_list": [data_x, data_y, res]})
