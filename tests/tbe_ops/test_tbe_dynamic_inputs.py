"""Issue 11 item 1: reg-info inputs/outputs of param_type "dynamic" reach the TBE impl as a tuple of dicts, one per
tensor (MindSpore's tbe_helper.get_input_output_args), the call passing a list of tensors as MindSpore's does."""
import importlib

import numpy as np
import pytest

import mindspore as ms
from mindspore import Tensor, context, ops
from mindspore.nn import Cell
from mindspore.ops import CustomRegOp, DataType, TBERegOp
from mindspore.ops import operations as P

from npusim.errors import KernelSelectionError, UnsupportedError

pytestmark = pytest.mark.filterwarnings("error::te_compat.fallback.ScalarPipeWarning")


@pytest.fixture(autouse=True)
def _ascend():
    context.set_context(device_target="Ascend")


def impl(func):
    return getattr(importlib.import_module("impl_add_n"), func)


ADD_N_INFO = TBERegOp("AddN") \
    .fusion_type("ELEMWISE") \
    .attr("n", "required", "int", "all") \
    .input(0, "x", False, "dynamic", "all") \
    .output(0, "y", False, "required", "all") \
    .dtype_format(DataType.F16_Default, DataType.F16_Default) \
    .dtype_format(DataType.F32_Default, DataType.F32_Default) \
    .dtype_format(DataType.I32_Default, DataType.I32_Default) \
    .get_op_info()


def _add_n_op():
    return ops.Custom(impl("add_n"), out_shape=[3, 40], out_dtype=ms.float32, func_type="tbe", reg_info=ADD_N_INFO)


def test_add_n_gets_a_list_of_dicts_for_any_number_of_tensors():
    op = _add_n_op()
    rng = np.random.default_rng(0)
    for count in (2, 3, 5):
        xs = [rng.standard_normal((3, 40)).astype(np.float32) for _ in range(count)]
        out = op([Tensor(x) for x in xs], count).asnumpy()
        np.testing.assert_allclose(out, np.sum(xs, axis=0), rtol=1e-6, atol=1e-6)


def test_add_n_int32_and_a_tuple_of_tensors():
    op = ops.Custom(impl("add_n"), out_shape=lambda *shapes: shapes[0], out_dtype=ms.int32, func_type="tbe",
                    reg_info=ADD_N_INFO)
    xs = [np.arange(24, dtype=np.int32).reshape(4, 6) * k for k in (1, 2, 3)]
    np.testing.assert_array_equal(op(tuple(Tensor(x) for x in xs), 3).asnumpy(), xs[0] * 6)


def test_the_impl_receives_a_tuple_of_tensor_dicts():
    seen = []

    def record(inputs, output, n, kernel_name="record"):
        seen.append((inputs, output, n))
        impl("add_n")(inputs, output, n, kernel_name=kernel_name)

    op = ops.Custom(record, out_shape=[2, 16], out_dtype=ms.float16, func_type="tbe", reg_info=ADD_N_INFO)
    x = np.ones((2, 16), np.float16)
    op([Tensor(x), Tensor(x * 2), Tensor(x * 3)], 3)
    (inputs, output, n), = seen
    assert isinstance(inputs, tuple) and len(inputs) == 3 and n == 3
    assert all(d["shape"] == [2, 16] and d["dtype"] == "float16" for d in inputs)
    assert isinstance(output, dict) and output["shape"] == [2, 16]


def test_mindspore_custom_tbe_net_with_a_dynamic_input():
    """MindSpore's tests/st/ops/graph_kernel/custom/test_custom_tbe.py Net1 shape: add_n_with_bias([t1, t3], 1.0)."""
    info = TBERegOp("CustomAddNWithBias") \
        .fusion_type("ELEMWISE") \
        .attr("bias", "required", "float", "all") \
        .input(0, "x", False, "dynamic", "all") \
        .output(0, "y", False, "required", "all") \
        .op_pattern("broadcast") \
        .dtype_format(DataType.F16_None, DataType.F16_None) \
        .dtype_format(DataType.F32_None, DataType.F32_None) \
        .get_op_info()

    def add_n_with_bias(inputs, output, bias, kernel_name="add_n_with_bias"):
        import te.lang.cce
        from te import tvm
        data = [tvm.placeholder(d.get("shape"), name="input_%d" % i, dtype=d.get("dtype").lower())
                for i, d in enumerate(inputs)]
        res = data[0]
        for other in data[1:]:
            res = te.lang.cce.vadd(res, other)
        res = te.lang.cce.vadds(res, bias)
        with tvm.target.cce():
            sch = te.lang.cce.auto_schedule(res)
        te.lang.cce.cce_build_code(sch, {"print_ir": False, "name": kernel_name, "tensor_list": data + [res]})

    class Net(Cell):
        def __init__(self):
            super().__init__()
            self.add_n_with_bias = ops.Custom(add_n_with_bias, out_shape=[2, 3], out_dtype=ms.float32,
                                              func_type="tbe", reg_info=info)
            self.neg = P.Neg()

        def construct(self, x):
            return self.add_n_with_bias([x, self.neg(x * 3)], 1.0)

    x = np.array([[1.0, 1.0, 1.0], [2.0, 2.0, 2.0]], np.float32)
    np.testing.assert_allclose(Net()(Tensor(x)).asnumpy(), x - 3 * x + 1.0, rtol=1e-6)


def test_a_dynamic_output_gets_a_tuple_of_dicts():
    info = CustomRegOp() \
        .input(0, "x") \
        .output(0, "y", "dynamic") \
        .dtype_format(DataType.F32_Default, DataType.F32_Default) \
        .target("Ascend") \
        .get_op_info()
    op = ops.Custom(impl("scaled_copies"), out_shape=([4, 8],) * 3, out_dtype=(ms.float32,) * 3, func_type="tbe",
                    reg_info=info)
    x = np.linspace(-1, 1, 32, dtype=np.float32).reshape(4, 8)
    outs = op(Tensor(x))
    assert len(outs) == 3
    for k, out in enumerate(outs):
        np.testing.assert_allclose(out.asnumpy(), x * (k + 1), rtol=1e-6)


def test_kernel_selection_applies_the_dynamic_column_to_every_tensor():
    op = _add_n_op()
    x32, x16 = np.ones((3, 40), np.float32), np.ones((3, 40), np.float16)
    with pytest.raises(KernelSelectionError, match="no kernel for input dtypes \\(float32, float16\\)"):
        op([Tensor(x32), Tensor(x16)], 2)


def test_two_dynamic_inputs_are_refused_with_a_reason():
    info = CustomRegOp().input(0, "a", "dynamic").input(1, "b", "dynamic").output(0, "y") \
        .target("Ascend").get_op_info()
    op = ops.Custom(impl("add_n"), out_shape=[3, 40], out_dtype=ms.float32, func_type="tbe", reg_info=info)
    x = Tensor(np.ones((3, 40), np.float32))
    with pytest.raises(UnsupportedError, match="2 dynamic inputs \\(a, b\\); npusim supports one"):
        op([x, x], [x], 3)
