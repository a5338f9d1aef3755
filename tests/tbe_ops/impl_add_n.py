"""AddN in the canndev style: a dynamic input ``inputs`` (a list of dicts), para_check DYNAMIC_INPUT."""
import te.lang.cce as tbe
from te import tvm
from te.platform.fusion_manager import fusion_manager
from te.utils import para_check
from topi import generic


@fusion_manager.register("add_n")
def add_n_compute(datas, output, tensor_num, kernel_name="add_n"):
    res = datas[0]
    for data in datas[1:]:
        res = tbe.vadd(res, data)
    return res


@para_check.check_op_params(para_check.DYNAMIC_INPUT, para_check.REQUIRED_OUTPUT, para_check.REQUIRED_ATTR_INT,
                            para_check.KERNEL_NAME)
def add_n(inputs, output, tensor_num, kernel_name="add_n"):
    input_num = len(inputs)
    if input_num < 2:
        raise RuntimeError("the number of input tensors must be at least 2, got %d" % input_num)
    if input_num != tensor_num:
        raise RuntimeError("input count %d differs from attr N = %d" % (input_num, tensor_num))
    shape = inputs[0].get("shape")
    dtype = inputs[0].get("dtype").lower()
    para_check.check_dtype(dtype, ("float16", "float32", "int32"), param_name="inputs")
    datas = []
    for index, item in enumerate(inputs):
        if list(item.get("shape")) != list(shape) or item.get("dtype").lower() != dtype:
            raise RuntimeError("all inputs of add_n must have the same shape and dtype")
        datas.append(tvm.placeholder(shape, name="data_%d" % index, dtype=dtype))
    res = add_n_compute(datas, output, tensor_num, kernel_name)
    with tvm.target.cce():
        sch = generic.auto_schedule(res)
    tbe.cce_build_code(sch, {"name": kernel_name, "tensor_list": datas + [res]})


@para_check.check_op_params(para_check.REQUIRED_INPUT, para_check.DYNAMIC_OUTPUT, para_check.KERNEL_NAME)
def scaled_copies(x, outputs, kernel_name="scaled_copies"):
    """A dynamic output: output i is x * (i + 1), as many outputs as the caller declares."""
    shape = x.get("shape")
    dtype = x.get("dtype").lower()
    para_check.check_shape(shape, param_name="x")
    data = tvm.placeholder(shape, name="data", dtype=dtype)
    results = [tbe.vmuls(data, tvm.const(index + 1, dtype)) for index in range(len(outputs))]
    with tvm.target.cce():
        sch = generic.auto_schedule(results)
    tbe.cce_build_code(sch, {"name": kernel_name, "tensor_list": [data] + results})
