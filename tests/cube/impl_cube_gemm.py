"""A GEMM op file in the CANN 2020 style (the shape of CANN's ``impl/gemm.py``): registration decorators,
``check_op_params``, CANN's own argument checks (alpha / beta dtypes equal to the output's, C the ``[M, N]``
matrix), ``[1]``-shaped alpha / beta placeholders, ``te.lang.cce.gemm``, ``auto_schedule`` and ``cce_build_code``
with the tensor list in CANN's order (a, b, bias, alpha, beta, result).  A second entry, ``gemm_v2``, uses the
2022 spelling ``tbe.dsl.gemm(tensor_a, tensor_b, para_dict)`` with float alpha / beta."""
import te.lang.cce
from te import tvm
from te.platform.fusion_manager import fusion_manager
from te.utils.op_utils import *
from topi import generic

ALPHA_BETA_SHAPE = [1]


def _placeholder(tensor_dict, name):
    fmt = "FRACTAL_NZ" if tensor_dict.get("format") == "FRACTAL_NZ" else "ND"
    return tvm.placeholder(list(tensor_dict.get("shape")), name=name, dtype=tensor_dict.get("dtype").lower(),
                           attrs={"format": fmt, "ori_shape": list(tensor_dict.get("ori_shape"))}), fmt


@fusion_manager.register("gemm")
def gemm_compute(tensor_a, tensor_b, tensor_bias, tensor_alpha, tensor_beta, output_y, trans_a, trans_b,
                 format_a, format_b):
    return te.lang.cce.gemm(tensor_a, tensor_b, tensor_alpha, tensor_beta, trans_a, trans_b, format_a=format_a,
                            format_b=format_b, dst_dtype=output_y.get("dtype").lower(), tensor_bias=tensor_bias)


@check_op_params(REQUIRED_INPUT, REQUIRED_INPUT, REQUIRED_INPUT, REQUIRED_INPUT, REQUIRED_INPUT, REQUIRED_OUTPUT,
                 OPTION_ATTR_BOOL, OPTION_ATTR_BOOL, KERNEL_NAME)
def gemm(input_x1, input_x2, bias, alpha, beta, output_y=None, trans_a=False, trans_b=False, kernel_name="gemm"):
    src_dtype = input_x1.get("dtype").lower()
    dst_dtype = output_y.get("dtype").lower()
    check_dtype(src_dtype, ("float16", "int8"), param_name="input_x1")
    if alpha.get("dtype") != beta.get("dtype"):
        raise RuntimeError("dtype of alpha and beta are not same!")
    tensor_a, format_a = _placeholder(input_x1, "tensor_a")
    tensor_b, format_b = _placeholder(input_x2, "tensor_b")
    tensor_bias, _ = _placeholder(bias, "tensor_bias")
    tensor_alpha = tvm.placeholder(ALPHA_BETA_SHAPE, name="tensor_alpha", dtype=alpha.get("dtype").lower())
    tensor_beta = tvm.placeholder(ALPHA_BETA_SHAPE, name="tensor_beta", dtype=beta.get("dtype").lower())
    result = gemm_compute(tensor_a, tensor_b, tensor_bias, tensor_alpha, tensor_beta, output_y, trans_a, trans_b,
                          format_a, format_b)
    with tvm.target.cce():
        schedule = generic.auto_schedule(result)
    tensor_list = [tensor_a, tensor_b, tensor_bias, tensor_alpha, tensor_beta, result]
    te.lang.cce.cce_build_code(schedule, {"print_ir": False, "name": kernel_name, "tensor_list": tensor_list})


@check_op_params(REQUIRED_INPUT, REQUIRED_INPUT, REQUIRED_INPUT, REQUIRED_OUTPUT, REQUIRED_ATTR_FLOAT,
                 REQUIRED_ATTR_FLOAT, KERNEL_NAME)
def gemm_v2(input_x1, input_x2, input_c, output_y, alpha, beta, kernel_name="gemm_v2"):
    from tbe import dsl
    tensor_a, format_a = _placeholder(input_x1, "tensor_a")
    tensor_b, format_b = _placeholder(input_x2, "tensor_b")
    tensor_c, _ = _placeholder(input_c, "tensor_c")
    para_dict = {"tensor_alpha": alpha, "tensor_beta": beta, "trans_a": False, "trans_b": False,
                 "format_a": format_a, "format_b": format_b, "dst_dtype": output_y.get("dtype").lower(),
                 "tensor_c": tensor_c, "kernel_name": kernel_name}
    result = dsl.gemm(tensor_a, tensor_b, para_dict)
    with tvm.target.cce():
        schedule = dsl.auto_schedule(result)
    dsl.build(schedule, {"name": kernel_name, "tensor_list": [tensor_a, tensor_b, tensor_c, result]})
