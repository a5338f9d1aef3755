"""Maximum through compare and select, in the 2022 tbe.dsl style (register_op_compute, para_check,
shape_util): dsl.vcmp(x, y, 'gt') then dsl.vsel."""
from tbe import dsl
from tbe import tvm
from tbe.common.register import register_op_compute
from tbe.common.utils import para_check
from tbe.common.utils import shape_util


@register_op_compute("SelectMax")
def select_max_compute(data_x, data_y, output_z, kernel_name="select_max"):
    condition = dsl.vcmp(data_x, data_y, "gt", "bool")
    return dsl.vsel(condition, data_x, data_y)


@para_check.check_op_params(para_check.REQUIRED_INPUT, para_check.REQUIRED_INPUT, para_check.REQUIRED_OUTPUT,
                            para_check.KERNEL_NAME)
def select_max(x, y, z, kernel_name="select_max"):
    dtype = x.get("dtype").lower()
    para_check.check_dtype(dtype, ("float16", "float32"), param_name="x")
    para_check.check_shape(x.get("shape"), param_name="x")
    para_check.check_elewise_shape_range([x, y], support_broadcast=False)
    shape = shape_util.shape_to_list(x.get("shape"))
    data_x = tvm.placeholder(shape, name="data_x", dtype=dtype)
    data_y = tvm.placeholder(shape, name="data_y", dtype=dtype)
    res = select_max_compute(data_x, data_y, z, kernel_name)
    with tvm.target.cce():
        sch = dsl.auto_schedule(res)
    dsl.build(sch, {"name": kernel_name, "tensor_list": [data_x, data_y, res]})
