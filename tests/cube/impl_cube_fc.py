"""A fully-connection op file in the CANN 2020 style: x in ND or FRACTAL_NZ, the weight in FRACTAL_Z as MindSpore's
TransData hands a Dense weight [n, k] to the kernel, y = x @ W^T (+ bias) in FRACTAL_NZ; registration decorator,
check_op_params, the compute, auto_schedule and cce_build_code."""
import te.lang.cce
from te import tvm
from te.platform.fusion_manager import fusion_manager
from te.utils.op_utils import *
from topi import generic


@fusion_manager.register("fully_connection_z")
def fully_connection_z_compute(x, w, bias, y, kernel_name="fully_connection_z"):
    # FRACTAL_Z of W [n, k] is CANN's FRACTAL_Z of B = W^T [k, n]: matmul's B untransposed
    return te.lang.cce.matmul(x, w, False, False, format_a=x.op.attrs["format"].value, format_b="FRACTAL_Z",
                              dst_dtype=y.get("dtype").lower(), tensor_bias=bias, format_out="FRACTAL_NZ")


@check_op_params(REQUIRED_INPUT, REQUIRED_INPUT, OPTION_INPUT, REQUIRED_OUTPUT, KERNEL_NAME)
def fully_connection_z(x, w, bias, y, kernel_name="fully_connection_z"):
    dtype = x.get("dtype").lower()
    check_dtype(dtype, ("float16", "int8"), param_name="x")
    if w.get("format") != "FRACTAL_Z":
        raise RuntimeError(f"fully_connection_z: the weight must arrive in FRACTAL_Z, got {w.get('format')}")
    x_format = "FRACTAL_NZ" if x.get("format") == "FRACTAL_NZ" else "ND"
    tensor_x = tvm.placeholder(x.get("shape"), name="x", dtype=dtype,
                               attrs={"format": x_format, "ori_shape": x.get("ori_shape")})
    tensor_w = tvm.placeholder(w.get("shape"), name="w", dtype=dtype,
                               attrs={"format": "FRACTAL_Z", "ori_shape": w.get("ori_shape")})
    tensors = [tensor_x, tensor_w]
    tensor_bias = None
    if bias is not None:
        n_aligned = w.get("shape")[1] * 16
        tensor_bias = tvm.placeholder([n_aligned], name="bias", dtype=bias.get("dtype").lower())
        tensors.append(tensor_bias)
    res = fully_connection_z_compute(tensor_x, tensor_w, tensor_bias, y, kernel_name)
    with tvm.target.cce():
        sch = generic.auto_schedule(res)
    te.lang.cce.cce_build_code(sch, {"name": kernel_name, "tensor_list": [*tensors, res]})
