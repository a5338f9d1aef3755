"""ReduceSum of the 2022 dynamic-shape library: axes is an input tensor whose value arrives as const_value."""
from impl.util.platform_adapter import OpPatternMode, classify, para_check, register_operator, \
    register_operator_compute, shape_util, tbe, tbe_context, tvm


@register_operator_compute("ReduceSum", op_mode="dynamic", support_fusion=True)
def reduce_sum_compute(x, axes, y, keepdims=None, kernel_name="reduce_sum"):
    dtype = x.dtype
    if dtype == "float16":
        x = tbe.cast_to(x, "float32")
    res = tbe.reduce_sum(x, axis=axes, keepdims=keepdims)
    return tbe.cast_to(res, dtype) if dtype == "float16" else res


@register_operator("ReduceSum")
@para_check.check_op_params(para_check.REQUIRED_INPUT, para_check.REQUIRED_INPUT, para_check.REQUIRED_OUTPUT,
                            para_check.OPTION_ATTR_BOOL, para_check.KERNEL_NAME)
def reduce_sum(x, axes, y, keep_dims=False, kernel_name="reduce_sum"):
    keepdims = False if keep_dims is None else keep_dims
    dtype_x = x.get("dtype").lower()
    para_check.check_dtype(dtype_x, ("float16", "float32"), param_name="x")
    x["rel_pos_to_reduce"] = "before"
    dtype_axes = axes.get("dtype").lower()
    para_check.check_dtype(dtype_axes, ("int32", "int64"), param_name="axes")
    axes["rel_pos_to_reduce"] = "axis"
    tbe_context.get_context().add_compile_info("axes_idx", 1)
    if "const_value" in axes.keys():
        axes["value"] = list(axes["const_value"])
    schedules, tensors = [], []
    for (_x, _axes) in classify([x, axes], OpPatternMode.REDUCE, {"keepdims": keepdims is True}):
        with tbe.compute():
            shape_x, shape_axes = shape_util.variable_shape([_x, _axes], op_mode="reduce")
            data_x = tvm.placeholder(shape_x, name="data_input_x", dtype=dtype_x)
            data_axes = tvm.placeholder(shape_axes, name="data_input_axes", dtype=dtype_axes)
            axes_d = shape_util.axis_check(len(shape_x), _axes.get("value"))
            res = reduce_sum_compute(data_x, axes_d, y, keepdims)
            tensors.append([data_x, data_axes, res])
        with tvm.target.cce():
            schedules.append(tbe.auto_schedule(res))
    tbe.build(schedules, {"name": kernel_name, "tensor_list": tensors})
