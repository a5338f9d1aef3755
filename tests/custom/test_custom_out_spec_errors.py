"""Issue 11 item 12: garbage in an op's output spec, results or gradients is an error naming the op.

The misuse is written the way scripts get it wrong: an out_dtype function that forgets to return, an out_shape
that multiplies into the exabytes, a pyfunc returning a str or a dict, a bprop returning a gradient of the wrong
shape (MindSpore checks it with check_bprop), and a call with one tensor more than the reg info declares.
"""
import os

import numpy as np
import pytest

import mindspore as ms
import mindspore.ops as ops
from mindspore import Tensor, context
from mindspore import dtype as mstype
from mindspore.ops import CustomRegOp, DataType, custom_info_register
from npusim.errors import (BpropCountError, BpropDtypeError, BpropShapeError, OutputSizeError, OutputSpecError,
                           PyfuncOutputError, TooManyInputsError)

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
X = np.array([1.0, 4.0, 9.0], np.float32)


def add(a, b):
    return a + b


# ---- out_dtype / out_shape ------------------------------------------------------------------------------------
def forgetful_dtype(x, y):
    if x == mstype.float16:
        return x        # every other dtype falls off the end: None


def test_out_dtype_function_returning_none_names_the_op():
    op = ops.Custom(add, out_shape=lambda x, _: x, out_dtype=forgetful_dtype, func_type="pyfunc")
    with pytest.raises(OutputSpecError) as info:
        op(Tensor(X), Tensor(X))
    assert "'add'" in str(info.value) and "None" in str(info.value) and "out_dtype" in str(info.value)
    assert isinstance(info.value, TypeError)
    half = X.astype(np.float16)
    assert op(Tensor(half), Tensor(half)).dtype == mstype.float16


def test_out_dtype_none_inside_a_tuple_and_a_dataless_type():
    op = ops.Custom(lambda a: (a, a), out_shape=lambda x: (x, x), out_dtype=lambda t: (t, None),
                    func_type="pyfunc")
    with pytest.raises(OutputSpecError, match="output 1"):
        op(Tensor(X))
    op = ops.Custom(lambda a: a, out_shape=lambda x: x, out_dtype=mstype.string, func_type="pyfunc")
    with pytest.raises(OutputSpecError, match="'<lambda>'"):
        op(Tensor(X))


def aot_add(out_shape):
    source = os.path.join(REPO, "examples", "aot_add.cc")
    return ops.Custom(source + ":CustomAdd", out_shape=out_shape, out_dtype=lambda x, _: x, func_type="aot")


def test_aot_out_shape_whose_bytes_overflow_is_refused_before_the_kernel():
    op = aot_add(lambda x, _: [1 << 40, 1 << 40])
    with pytest.raises(OutputSizeError) as info:
        op(Tensor(X), Tensor(X))
    message = str(info.value)
    assert "aot_add.cc:CustomAdd" in message and "output 0" in message and str(1 << 40) in message
    assert isinstance(info.value, ValueError)
    np.testing.assert_array_equal(aot_add(lambda x, _: x)(Tensor(X), Tensor(X)).asnumpy(), X + X)


def aicpu_reshape(out_shape):
    info = (CustomRegOp("Reshape").input(0, "x").output(0, "y")
            .attr("cust_aicpu", "optional", "str", value="mindspore_aicpu_kernels")
            .dtype_format(DataType.F32_Default, DataType.F32_Default).target("Ascend").get_op_info())

    @custom_info_register(info)
    def reshape_kernel():
        """Reshape of the built-in AICPU kernel library."""

    return ops.Custom(reshape_kernel, out_shape=out_shape, out_dtype=mstype.float32, func_type="aicpu")


def test_aicpu_out_shape_whose_bytes_overflow_is_refused_before_the_plan():
    with pytest.raises(OutputSizeError, match=r"'reshape_kernel'.*output 0"):
        aicpu_reshape([1 << 62, 3])(Tensor(X))
    assert aicpu_reshape([3])(Tensor(X)).shape == (3,)


def test_negative_dims_other_than_dynamic_markers_are_refused():
    op = ops.Custom(lambda a: a, out_shape=[3, -3], out_dtype=mstype.float32, func_type="pyfunc")
    with pytest.raises(OutputSizeError, match=r"-3"):
        op(Tensor(X))


# ---- pyfunc results --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("result", ["1.0, 2.0, 3.0", {"y": [1.0, 2.0, 3.0]}, ["a", "b", "c"], [[1.0], [2.0, 3.0]]],
                         ids=["str", "dict", "list-of-str", "ragged"])
def test_pyfunc_returning_non_numeric_data_names_the_op(result):
    def describe(a):
        return result

    op = ops.Custom(describe, out_shape=lambda x: x, out_dtype=lambda t: t, func_type="pyfunc")
    with pytest.raises(PyfuncOutputError) as info:
        op(Tensor(X))
    assert "'describe'" in str(info.value) and "output 0" in str(info.value)
    assert type(result).__name__ in str(info.value)


# ---- bprop gradients (MindSpore's check_bprop) -----------------------------------------------------------------
def square(a):
    return a * a


def square_op(bprop):
    return ops.Custom(square, out_shape=lambda x: x, out_dtype=lambda t: t, func_type="pyfunc", bprop=bprop)


def test_bprop_gradient_of_another_shape_is_check_bprop_error():
    def bprop(x, out, dout):
        return (ops.reduce_sum(2 * x * dout),)       # summed: shape () instead of (3,) is skipped, as MindSpore does

    def bad_bprop(x, out, dout):
        return (ops.reshape(2 * x * dout, (3, 1)),)  # a (3, 1) gradient for a (3,) input

    np.testing.assert_allclose(ms.grad(square_op(bprop))(Tensor(X)).asnumpy(), np.full(3, np.sum(2 * X)))
    with pytest.raises(BpropShapeError) as info:
        ms.grad(square_op(bad_bprop))(Tensor(X))
    message = str(info.value)
    assert message.startswith("For user defined method 'bprop' of Custom op 'square', the 0th return value"
                              "(gradient of the 0th argument) should have the same shape as the 0th argument")
    assert "which is:(3,), but got: (3, 1)." in message
    assert isinstance(info.value, ValueError)


def test_bprop_returning_too_few_or_too_many_gradients():
    op = ops.Custom(add, out_shape=lambda x, _: x, out_dtype=lambda x, _: x, func_type="pyfunc",
                    bprop=lambda a, b, out, dout: (dout,))
    with pytest.raises(BpropCountError, match=r"which is:2 but got 1"):
        ops.GradOperation(get_all=True)(op)(Tensor(X), Tensor(X))
    op = square_op(lambda x, out, dout: (dout, dout))
    with pytest.raises(BpropCountError, match=r"which is:1 but got 2"):
        ms.grad(op)(Tensor(X))


def test_bprop_gradient_dtype_is_checked_under_check_bprop():
    op = square_op(lambda x, out, dout: ((2 * x * dout).astype(mstype.float16),))
    assert ms.grad(op)(Tensor(X)).shape == (3,)    # MindSpore checks dtypes only when asked
    context.set_context(check_bprop=True)
    with pytest.raises(BpropDtypeError, match=r"same dtype as the 0th argument, which is:Float32, but got: Float16"):
        ms.grad(op)(Tensor(X))


# ---- more tensors than the reg info declares -------------------------------------------------------------------
ONE_INPUT = (CustomRegOp().input(0, "x").output(0, "y").attr("scale", "required", "float")
             .dtype_format(DataType.F32_Default, DataType.F32_Default).target("CPU").get_op_info())


def test_a_tensor_where_an_attribute_belongs_is_an_input_count_error():
    op = ops.Custom(lambda x, scale: x * scale, out_shape=lambda x, *_: x, out_dtype=lambda x, *_: x,
                    func_type="pyfunc", reg_info=ONE_INPUT)
    np.testing.assert_allclose(op(Tensor(X), 2.0).asnumpy(), X * 2.0)
    with pytest.raises(TooManyInputsError) as info:
        op(Tensor(X), Tensor(X))
    assert "'<lambda>'" in str(info.value) and "1 tensor input(s) (x)" in str(info.value)


def test_arrays_beyond_the_declared_inputs_of_an_op_without_attributes():
    info = (CustomRegOp().input(0, "a").input(1, "b").output(0, "y")
            .dtype_format(DataType.F32_Default, DataType.F32_Default, DataType.F32_Default)
            .target("CPU").get_op_info())
    op = ops.Custom(lambda *arrays: sum(arrays), out_shape=lambda x, *_: x, out_dtype=lambda x, *_: x,
                    func_type="pyfunc", reg_info=info)
    np.testing.assert_allclose(op(Tensor(X), Tensor(X)).asnumpy(), 2 * X)
    with pytest.raises(TooManyInputsError, match=r"2 tensor input\(s\) \(a, b\)"):
        op(Tensor(X), Tensor(X), X)


@pytest.fixture(autouse=True)
def _cpu():
    context.set_context(device_target="CPU")
