"""A MatMul op file in the CANN 2020 style (canndev ``impl/mat_mul.py`` shape): registration decorators,
``check_op_params`` with an optional bias, a compute with a fused relu option, ``auto_schedule`` and
``cce_build_code`` with ``need_build`` False."""
import te.lang.cce
from te import tvm
from te.platform.fusion_manager import fusion_manager
from te.platform.cce_policy import get_L1_info
from te.utils.error_manager import error_manager_vector
from te.utils.op_utils import *
from topi import generic


@fusion_manager.register("mat_mul")
def mat_mul_compute(input_x1, input_x2, bias, output_y, trans_a=False, trans_b=False, fuse_relu=False,
                    kernel_name="matmul"):
    format_a = input_x1.op.attrs["format"].value
    format_b = input_x2.op.attrs["format"].value
    res = te.lang.cce.matmul(input_x1, input_x2, trans_a, trans_b, format_a=format_a, format_b=format_b,
                             dst_dtype=output_y.get("dtype").lower(), tensor_bias=bias)
    if fuse_relu:
        res = te.lang.cce.vrelu(res)
    return res


def _shape_of(tensor_dict):
    fmt = tensor_dict.get("format")
    return list(tensor_dict.get("shape")), "FRACTAL_NZ" if fmt == "FRACTAL_NZ" else "ND"


@check_op_params(REQUIRED_INPUT, REQUIRED_INPUT, OPTION_INPUT, REQUIRED_OUTPUT, REQUIRED_ATTR_BOOL,
                 REQUIRED_ATTR_BOOL, OPTION_ATTR_BOOL, KERNEL_NAME)
def mat_mul(input_x1, input_x2, bias, output_y, trans_a=False, trans_b=False, fuse_relu=False, kernel_name="matmul"):
    if get_L1_info("L1_fusion_enabled"):
        error_manager_vector.raise_err_specific_reson("mat_mul", "L1 fusion is not expected here")
    shape_a, format_a = _shape_of(input_x1)
    shape_b, format_b = _shape_of(input_x2)
    dtype = input_x1.get("dtype").lower()
    check_dtype(dtype, ("float16", "int8"), param_name="input_x1")
    tensor_a = tvm.placeholder(shape_a, name="tensor_a", dtype=dtype, attrs={"format": format_a})
    tensor_b = tvm.placeholder(shape_b, name="tensor_b", dtype=dtype, attrs={"format": format_b})
    tensor_list = [tensor_a, tensor_b]
    tensor_bias = None
    if bias is not None:
        n = shape_b[-2] if trans_b else shape_b[-1]
        n_aligned = (n + 15) // 16 * 16
        tensor_bias = tvm.placeholder([n_aligned], name="tensor_bias", dtype=bias.get("dtype").lower(),
                                      attrs={"ori_shape": bias.get("ori_shape")})
        tensor_list.append(tensor_bias)
    res = mat_mul_compute(tensor_a, tensor_b, tensor_bias, output_y, trans_a, trans_b, fuse_relu, kernel_name)
    with tvm.target.cce():
        sch = generic.auto_schedule(res)
    tensor_list.append(res)
    config = {"print_ir": False, "need_build": False, "name": kernel_name, "tensor_list": tensor_list}
    te.lang.cce.cce_build_code(sch, config)


@check_op_params(REQUIRED_INPUT, REQUIRED_INPUT, OPTION_INPUT, REQUIRED_OUTPUT, REQUIRED_ATTR_BOOL,
                 REQUIRED_ATTR_BOOL, KERNEL_NAME)
def batch_matmul(input_x, input_y, bias, output_z, trans_a=False, trans_b=False, kernel_name="batch_matmul"):
    shape_a, format_a = _shape_of(input_x)
    shape_b, format_b = _shape_of(input_y)
    dtype = input_x.get("dtype").lower()
    check_shape(shape_a, min_rank=3, param_name="input_x")
    tensor_a = tvm.placeholder(shape_a, name="tensor_a", dtype=dtype, attrs={"format": format_a})
    tensor_b = tvm.placeholder(shape_b, name="tensor_b", dtype=dtype, attrs={"format": format_b})
    res = te.lang.cce.batch_matmul(tensor_a, tensor_b, trans_a, trans_b, format_a=format_a, format_b=format_b,
                                   dst_dtype=output_z.get("dtype").lower())
    with tvm.target.cce():
        sch = generic.auto_schedule(res)
    te.lang.cce.cce_build_code(sch, {"name": kernel_name, "tensor_list": [tensor_a, tensor_b, res]})
