"""ScaledAdd: y = x1 * alpha + x2, a TBE DSL op written the way CANN's 2021-2022 op library writes them."""
from impl.util.platform_adapter import para_check
from impl.util.platform_adapter import register_operator
from impl.util.platform_adapter import register_operator_compute
from impl.util.platform_adapter import shape_util
from impl.util.platform_adapter import tbe
from impl.util.platform_adapter import tvm


@register_operator_compute("ScaledAdd", op_mode="static", support_fusion=True)
def scaled_add_compute(x1, x2, y, alpha, kernel_name="scaled_add"):
    """x1 * alpha + x2"""
    scaled = tbe.vmuls(x1, tvm.const(alpha, dtype=x1.dtype))
    return tbe.vadd(scaled, x2)


@register_operator("ScaledAdd")
@para_check.check_op_params(para_check.REQUIRED_INPUT, para_check.REQUIRED_INPUT, para_check.REQUIRED_OUTPUT,
                            para_check.REQUIRED_ATTR_FLOAT, para_check.KERNEL_NAME)
def scaled_add(x1, x2, y, alpha, kernel_name="scaled_add"):
    """The op entry: float16 / float32 inputs of one shape."""
    dtype = x1.get("dtype").lower()
    para_check.check_dtype(dtype, ("float16", "float32"), param_name="x1")
    shape = shape_util.shape_refine(list(x1.get("shape")))
    data1 = tvm.placeholder(shape, name="data1", dtype=dtype)
    data2 = tvm.placeholder(shape, name="data2", dtype=dtype)
    res = scaled_add_compute(data1, data2, y, alpha, kernel_name)
    with tvm.target.cce():
        sch = tbe.auto_schedule(res)
    tbe.build(sch, {"name": kernel_name, "tensor_list": [data1, data2, res]})
