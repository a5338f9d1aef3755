"""Several dtypes per op and non-tensor aclnn parameters (int, bool, aclDataType, aclScalar, aclIntArray), in the
style of MindSpore's test_custom_multi_type: ArgMin, Cast, ReduceSum, Add's alpha."""
import numpy as np
import pytest

import mindspore as ms
import mindspore.ops as ops
from mindspore import Tensor, context
from mindspore.common import dtype as mstype
from mindspore.nn import Cell
from mindspore.ops import CustomRegOp, DataType

from aclnn_custom_support import infer_file  # noqa: F401  (fixture)

MODES = [ms.GRAPH_MODE, ms.PYNATIVE_MODE]
ARGMIN_REG = CustomRegOp("aclnnArgMin").input(0, "x", "required").attr("dim", "required", "int") \
    .attr("keep_dim", "required", "bool").output(0, "z", "required") \
    .dtype_format(DataType.F16_Default, DataType.F16_Default).target("Ascend").get_op_info()


@pytest.fixture(autouse=True)
def ascend():
    context.set_context(device_target="Ascend")


class ArgMinNet(Cell):
    def __init__(self, func, out_shape, out_dtype, dim, keep_dim):
        super().__init__()
        self.dim, self.keep_dim = dim, keep_dim
        self.argmin = ops.Custom(func, out_shape, out_dtype, func_type="aot", reg_info=ARGMIN_REG)

    def construct(self, x):
        return self.argmin(x, self.dim, self.keep_dim)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int32])
def test_argmin_across_input_dtypes(mode, dtype):
    context.set_context(mode=mode)
    x = (np.random.default_rng(5).standard_normal((2, 3, 4, 5)) * 50).astype(dtype)
    net = ArgMinNet("aclnnArgMin", lambda x, dim, keep: x[1:], ms.int64, 0, False)
    out = net(Tensor(x))
    assert out.dtype == ms.int64 and out.shape == (3, 4, 5)
    np.testing.assert_array_equal(out.asnumpy(), np.argmin(x, axis=0))


@pytest.mark.parametrize("keep_dim", [False, True])
def test_argmin_with_cpp_infer_reading_the_call_attributes(keep_dim, infer_file):
    x = np.random.default_rng(6).standard_normal((3, 4)).astype(np.float32)
    out = ArgMinNet(f"{infer_file}:aclnnArgMin", None, None, 1, keep_dim)(Tensor(x))
    assert out.dtype == ms.int64
    np.testing.assert_array_equal(out.asnumpy(), np.argmin(x, axis=1, keepdims=keep_dim))


def test_scalars_as_reg_info_inputs_follow_the_aclnn_parameter_kinds():
    """MindSpore's custom_inputs_type case: the reg info lists dim and keep_dim as inputs; they reach aclnnArgMin's
    int64_t and bool parameters because the operator's parameter list says what each position takes."""
    reg = CustomRegOp("aclnnArgMin").input(0, "x", "required").input(1, "y", "required") \
        .input(2, "w", "required").output(0, "z", "required").target("Ascend").get_op_info()
    argmin = ops.Custom("aclnnArgMin", lambda x, y, z: x[1:], ms.int64, func_type="aot", reg_info=reg)
    x = np.random.default_rng(8).standard_normal((2, 3, 4)).astype(np.float32)
    np.testing.assert_array_equal(argmin(Tensor(x), 0, False).asnumpy(), np.argmin(x, axis=0))


@pytest.mark.parametrize("target", [mstype.float32, mstype.int32, mstype.float16, mstype.bool_])
def test_cast_takes_mindspore_dtypes_without_reg_info(target):
    """MindSpore's test_custom_cast_aclnn: reg_info=None, the dtype object is aclnnCast's aclDataType."""
    x = np.array([[-1.5, 0.0, 2.25], [3.0, 0.5, -7.0]], np.float16)
    cast = ops.Custom("aclnnCast", lambda x, dst: x, target, func_type="aot")
    out = cast(Tensor(x), target)
    assert out.dtype == target
    np.testing.assert_array_equal(out.asnumpy(), x.astype(target.np_dtype))


def test_cast_takes_a_type_id_too():
    x = np.arange(4, dtype=np.float32)
    cast = ops.Custom("Cast", lambda x, dst: x, mstype.float16, func_type="aot")
    out = cast(Tensor(x), 42)  # MindSpore's TypeId of Float16
    assert out.dtype == mstype.float16
    np.testing.assert_array_equal(out.asnumpy(), x.astype(np.float16))


def test_reduce_sum_takes_a_list_attribute_a_bool_and_a_dtype():
    reg = CustomRegOp("aclnnReduceSum").input(0, "x", "required").attr("dims", "required", "listInt") \
        .attr("keep_dims", "required", "bool").attr("dtype", "required", "all").output(0, "y", "required") \
        .target("Ascend").get_op_info()
    reduce_sum = ops.Custom("aclnnReduceSum", lambda x, dims, keep, dtype: [x[0]], mstype.float32,
                            func_type="aot", reg_info=reg)
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    np.testing.assert_allclose(reduce_sum(Tensor(x), (1,), False, mstype.float32).asnumpy(), x.sum(axis=1))


@pytest.mark.parametrize("alpha, dtype", [(2, np.float32), (0.5, np.float32), (3, np.int32)])
def test_add_alpha_scalar_from_int_and_float_call_values(alpha, dtype):
    add = ops.Custom("aclnnAdd", lambda a, b, alpha: a, lambda a, b, alpha: a, func_type="aot")
    x, y = np.arange(6, dtype=dtype), np.full(6, 2, dtype)
    np.testing.assert_allclose(add(Tensor(x), Tensor(y), alpha).asnumpy(), x + alpha * y)


def test_add_without_alpha_defaults_it_to_one():
    add = ops.Custom("Add", lambda a, b: a, lambda a, b: a, func_type="aot")
    x = np.arange(5, dtype=np.float32)
    np.testing.assert_allclose(add(Tensor(x), Tensor(x)).asnumpy(), 2 * x)


def batch_norm_reg_info(float_type):
    reg = CustomRegOp("aclnnBatchNorm")
    for index, name in enumerate(("x", "scale", "bias", "mean", "var")):
        reg.input(index, name, "required")
    reg.attr("training", "required", "bool").attr("momentum", "required", float_type) \
        .attr("eps", "required", float_type)
    for index, name in enumerate(("output", "saved_mean", "saved_variance")):
        reg.output(index, name, "required")
    return reg.target("Ascend").get_op_info()


@pytest.mark.parametrize("float_type", ["float", "double"])
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_batch_norm_inference_with_float_or_double_attributes(float_type, dtype):
    """MindSpore's test_custom_batch_norm(_double)_aclnn: five inputs, three attributes, three outputs."""
    bn = ops.Custom("aclnnBatchNorm", lambda x, s, b, m, v, t, mo, e: (x, s, s),
                    lambda x, s, b, m, v, t, mo, e: (x, x, x), func_type="aot",
                    reg_info=batch_norm_reg_info(float_type))
    x = (3 * np.ones(16)).reshape(2, 2, 1, 4).astype(dtype)
    ones = np.ones(2, dtype)
    out = bn(Tensor(x), Tensor(ones), Tensor(ones), Tensor(ones), Tensor(ones), False, 0.1, 1e-5)
    assert isinstance(out, tuple) and len(out) == 3 and out[0].dtype == mstype.to_type(dtype)
    expected = (x - 1) / np.sqrt(1 + 1e-5) + 1
    np.testing.assert_allclose(out[0].asnumpy(), expected, rtol=1e-3 if dtype == np.float16 else 1e-5)


def test_avg_pool_2d_with_cpp_infer_from_primitive_attributes(infer_file):
    """MindSpore's test_custom_arg_pool_2d_aclnn: list attributes, a bool given for an int8 parameter, and C++
    infer reading the window from add_prim_attr values."""
    reg = CustomRegOp("aclnnAvgPool2d").input(0, "x", "required") \
        .attr("kernel_size", "required", "listInt").attr("stride", "required", "listInt") \
        .attr("padding", "required", "listInt").attr("ceil_mode", "required", "bool") \
        .attr("count_include_pad", "required", "bool").attr("divisor_override", "required", "int") \
        .attr("cube_math_type", "required", "bool").output(0, "output", "required") \
        .dtype_format(DataType.F16_Default, DataType.F16_Default).target("Ascend").get_op_info()
    pool = ops.Custom(f"{infer_file}:aclnnAvgPool2d", None, lambda x, *attrs: x, func_type="aot", reg_info=reg)
    for name in ("kernel_size", "stride", "padding"):
        pool.add_prim_attr(name, (2, 2) if name != "padding" else (1, 1))
    image = np.random.default_rng(9).random((1, 4, 4)).astype(np.float32)
    out = pool(Tensor(image), (2, 2), (2, 2), (1, 1), False, True, 0, False)
    padded = np.pad(image, ((0, 0), (1, 1), (1, 1)))
    expected = padded.reshape(1, 3, 2, 3, 2).mean(axis=(2, 4))
    assert out.shape == (1, 3, 3)
    np.testing.assert_allclose(out.asnumpy(), expected, rtol=1e-5)
