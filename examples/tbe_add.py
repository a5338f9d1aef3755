"""npusim demo: the seed document's TBE add, run unmodified on the simulated Ascend 910.

    npusim profile examples/tbe_add.py

The impl function is ordinary TBE DSL (te.lang.cce.vadd + auto_schedule + cce_build_code).  npusim builds it into
kernel_meta/, runs it on the simulated AI cores, and `npusim profile` prints what each launch would cost on the chip.
"""
import numpy as np
from mindspore import context, Tensor
import mindspore.ops as ops
from mindspore.ops import DataType, CustomRegOp, custom_info_register

context.set_context(device_target="Ascend")


@custom_info_register(CustomRegOp()
                      .input(0, "a")
                      .input(1, "b")
                      .output(0, "output")
                      .dtype_format(DataType.F16_Default, DataType.F16_Default, DataType.F16_Default)
                      .dtype_format(DataType.F32_Default, DataType.F32_Default, DataType.F32_Default)
                      .target("Ascend")
                      .get_op_info())
def add(a, b, output, kernel_name="add"):
    import te.lang.cce
    from te import tvm
    data0 = tvm.placeholder(a.get("shape"), name="data0", dtype=a.get("dtype").lower())
    data1 = tvm.placeholder(b.get("shape"), name="data1", dtype=b.get("dtype").lower())
    res = te.lang.cce.vadd(data0, data1)
    with tvm.target.cce():
        sch = te.lang.cce.auto_schedule(res)
    config = {"print_ir": False, "name": kernel_name, "tensor_list": [data0, data1, res]}
    te.lang.cce.cce_build_code(sch, config)


if __name__ == "__main__":
    op = ops.Custom(add, out_shape=lambda x, _: x, out_dtype=lambda x, _: x, func_type="tbe")

    x0 = np.array([[0.0, 0.0], [1.0, 1.0]]).astype(np.float32)
    x1 = np.array([[2.0, 2.0], [3.0, 3.0]]).astype(np.float32)
    print(op(Tensor(x0), Tensor(x1)))

    # A larger fp16 add: tiled to the Unified Buffer and split over the AI cores.
    rng = np.random.default_rng(0)
    a = rng.standard_normal((1024, 4096)).astype(np.float16)
    b = rng.standard_normal((1024, 4096)).astype(np.float16)
    out = op(Tensor(a), Tensor(b)).asnumpy()
    print("fp16 (1024, 4096) add matches numpy bit for bit:", bool(np.array_equal(out, a + b)))
