"""Issue 11 item 6: attributes reach the kernel the ways MindSpore gives them.

MindSpore's Custom op reads an attribute from the primitive: a call argument at the attribute's position (after the
tensors, in reg-info order), a value set with ``op.add_prim_attr(name, value)``, or the reg info's default / value.
These tests drive tbe, aicpu, akg and pyfunc impls written the way MindSpore's own tests write them
(tests/st/graph_kernel/custom/test_custom_tbe.py's square_with_bias, an AICPU kernel named by its op type, a
hybrid function taking its attribute as a trailing parameter, an aot kernel reading ``extra->Attr<float>``).
"""
import os

import numpy as np
import pytest

import mindspore.ops as ops
from mindspore import Tensor, context
from mindspore import dtype as mstype
from mindspore.ops import CustomRegOp, DataType, custom_info_register
from npusim.errors import AttributeTypeError, MissingAttributeError

X = np.array([1.0, 4.0, 9.0], np.float32)


# ---- tbe: the seed impl of MindSpore's test_custom_tbe.py, in its own words ------------------------------------
@custom_info_register(CustomRegOp()
                      .attr("bias", "required", "float")
                      .input(0, "x")
                      .output(0, "y")
                      .dtype_format(DataType.F32_Default, DataType.F32_Default)
                      .dtype_format(DataType.F16_Default, DataType.F16_Default)
                      .target("Ascend")
                      .get_op_info())
def square_plus_bias(input_x, output_y, bias=0.0, kernel_name="square_plus_bias"):
    import te.lang.cce
    from te import tvm

    shape = input_x.get("shape")
    dtype = input_x.get("dtype").lower()
    data = tvm.placeholder(shape, name="data", dtype=dtype)
    with tvm.target.cce():
        squared = te.lang.cce.vmul(data, data)
        res = te.lang.cce.vadds(squared, bias)
        sch = te.lang.cce.auto_schedule(res)
    te.lang.cce.cce_build_code(sch, {"print_ir": False, "name": kernel_name, "tensor_list": [data, res]})


def tbe_square_plus_bias():
    return ops.Custom(square_plus_bias, lambda x, *_: x, lambda x, *_: x, func_type="tbe")


def test_tbe_attribute_from_add_prim_attr():
    op = tbe_square_plus_bias()
    op.add_prim_attr("bias", 2.0)
    np.testing.assert_allclose(op(Tensor(X)).asnumpy(), X * X + 2.0)
    # a call argument at the attribute's position wins, as MindSpore turns it into the attribute
    np.testing.assert_allclose(op(Tensor(X), 1.0).asnumpy(), X * X + 1.0)
    # a later add_prim_attr changes what the next call builds
    op.add_prim_attr("bias", -1.0)
    np.testing.assert_allclose(op(Tensor(X)).asnumpy(), X * X - 1.0)


def test_tbe_attribute_missing_names_every_way_to_give_it():
    op = tbe_square_plus_bias()
    with pytest.raises(MissingAttributeError) as info:
        op(Tensor(X))
    message = str(info.value)
    assert "square_plus_bias" in message and "'bias'" in message
    for way in ("call argument", "add_prim_attr('bias'", "default_value", "value="):
        assert way in message, way
    assert isinstance(info.value, ValueError)


def test_tbe_reg_info_default_value_reaches_the_impl():
    info = (CustomRegOp().attr("bias", "optional", "float", default_value="0.5").input(0, "x").output(0, "y")
            .dtype_format(DataType.F32_Default, DataType.F32_Default).target("Ascend").get_op_info())
    op = ops.Custom(square_plus_bias, lambda x, *_: x, lambda x, *_: x, func_type="tbe", reg_info=info)
    np.testing.assert_allclose(op(Tensor(X)).asnumpy(), X * X + 0.5)


# ---- aicpu: the built-in Reshape kernel reads its "shape" attribute ----------------------------------------------
def aicpu_reshape(shape_value=None):
    reg = CustomRegOp("Reshape").input(0, "x").output(0, "y")
    if shape_value is None:
        reg = reg.attr("shape", "required", "listInt")
    else:
        reg = reg.attr("shape", "required", "listInt", value=shape_value)
    info = (reg.attr("cust_aicpu", "optional", "str", value="mindspore_aicpu_kernels")
            .dtype_format(DataType.F32_Default, DataType.F32_Default).target("Ascend").get_op_info())

    @custom_info_register(info)
    def reshape_aicpu():
        """Reshape of the built-in AICPU kernel library."""

    return ops.Custom(reshape_aicpu, out_shape=lambda x, *_: (-1, -1), out_dtype=lambda x, *_: x,
                      func_type="aicpu")


def test_aicpu_attribute_from_add_prim_attr():
    op = aicpu_reshape()
    op.add_prim_attr("shape", [3, 2])
    x = np.arange(6, dtype=np.float32)
    out = op(Tensor(x))
    assert out.shape == (3, 2)
    np.testing.assert_array_equal(out.asnumpy(), x.reshape(3, 2))
    op.add_prim_attr("shape", (2, 3))
    assert op(Tensor(x)).shape == (2, 3)


def test_aicpu_reg_info_value_reaches_the_kernel():
    op = aicpu_reshape(shape_value=[1, 6])
    assert op(Tensor(np.arange(6, dtype=np.float32))).shape == (1, 6)


def test_aicpu_missing_attribute_is_reported_before_the_kernel_runs():
    with pytest.raises(MissingAttributeError, match=r"'shape'.*add_prim_attr\('shape'"):
        aicpu_reshape()(Tensor(np.arange(6, dtype=np.float32)))


# ---- akg: a hybrid-grammar function with its attribute as a trailing parameter -----------------------------------
def scale_by(a, factor):
    out = output_tensor(a.shape, a.dtype)
    for i in range(a.shape[0]):
        out[i] = a[i] * factor
    return out


SCALE_INFO = (CustomRegOp().input(0, "a").output(0, "out").attr("factor", "required", "float")
              .dtype_format(DataType.F32_Default, DataType.F32_Default).target("CPU").get_op_info())


def test_akg_attribute_from_add_prim_attr_and_call():
    op = ops.Custom(scale_by, lambda x, *_: x, lambda x, *_: x, func_type="akg", reg_info=SCALE_INFO)
    op.add_prim_attr("factor", 3.0)
    np.testing.assert_allclose(op(Tensor(X)).asnumpy(), X * 3.0)
    np.testing.assert_allclose(op(Tensor(X), 0.5).asnumpy(), X * 0.5)


def test_akg_reg_info_value_is_the_attribute():
    info = (CustomRegOp().input(0, "a").output(0, "out").attr("factor", "required", "float", value=4.0)
            .dtype_format(DataType.F32_Default, DataType.F32_Default).target("CPU").get_op_info())
    op = ops.Custom(scale_by, lambda x, *_: x, lambda x, *_: x, func_type="akg", reg_info=info)
    np.testing.assert_allclose(op(Tensor(X)).asnumpy(), X * 4.0)


# ---- conversion to the declared type ---------------------------------------------------------------------------
def repeat_info(kind="int"):
    return (CustomRegOp().input(0, "x").output(0, "y").attr("times", "required", kind)
            .dtype_format(DataType.F32_Default, DataType.F32_Default).target("CPU").get_op_info())


def tile_op(kind="int"):
    return ops.Custom(lambda x, times: np.tile(x, times), out_shape=lambda x, times: [x[0] * int(times)],
                      out_dtype=lambda x, _: x, func_type="pyfunc", reg_info=repeat_info(kind))


def test_int_attribute_given_a_fractional_float_is_an_error_naming_op_and_attribute():
    op = tile_op()
    with pytest.raises(AttributeTypeError) as info:
        op(Tensor(X), 2.5)
    message = str(info.value)
    assert "<lambda>" in message and "'times'" in message and "2.5" in message and "int" in message
    assert isinstance(info.value, TypeError)
    with pytest.raises(AttributeTypeError, match="'times'"):
        op(Tensor(X), np.float32(1.25))
    op.add_prim_attr("times", 0.5)
    with pytest.raises(AttributeTypeError, match="'times'"):
        op(Tensor(X))


def test_integral_floats_and_numpy_ints_still_bind_to_int_attributes():
    seen = []
    op = ops.Custom(lambda x, times: seen.append(times) or np.tile(x, times),
                    out_shape=lambda x, times: [x[0] * int(times)], out_dtype=lambda x, _: x,
                    func_type="pyfunc", reg_info=repeat_info())
    op(Tensor(X), 2.0)
    op(Tensor(X), np.int64(3))
    op(Tensor(X), "2")
    assert seen == [2, 3, 2] and all(type(v) is int for v in seen)


def test_list_int_attribute_rejects_fractional_items():
    info = (CustomRegOp().input(0, "x").output(0, "y").attr("perm", "required", "listInt")
            .dtype_format(DataType.F32_Default, DataType.F32_Default).target("CPU").get_op_info())
    op = ops.Custom(lambda x, perm: x, out_shape=lambda x, _: x, out_dtype=lambda x, _: x, func_type="pyfunc",
                    reg_info=info)
    with pytest.raises(AttributeTypeError, match=r"'perm'.*0\.5"):
        op(Tensor(X), [0, 0.5])


def test_add_prim_attr_sets_the_attribute_like_mindspore():
    # as in MindSpore, an attribute given by add_prim_attr is not a call argument: out_shape sees the tensors only
    op = ops.Custom(lambda x, times: np.tile(x, times), out_shape=lambda x, *rest: [x[0] * 2],
                    out_dtype=lambda x, *rest: x, func_type="pyfunc", reg_info=repeat_info())
    assert op.add_prim_attr("times", 2) is op
    assert op.attrs["times"] == 2 and op.times == 2
    np.testing.assert_array_equal(op(Tensor(X)).asnumpy(), np.tile(X, 2))
    assert op.func_type == "pyfunc"
    op.add_prim_attr("func_type", "tbe")  # an attribute named like one of the op's own fields leaves the field
    assert op.func_type == "pyfunc" and op.attrs["func_type"] == "tbe"


def test_optional_attribute_without_value_keeps_later_positions():
    info = (CustomRegOp().input(0, "x").output(0, "y").attr("scale", "optional", "float")
            .attr("shift", "required", "float")
            .dtype_format(DataType.F32_Default, DataType.F32_Default).target("CPU").get_op_info())
    seen = []

    def affine(x, scale, shift):
        seen.append((scale, shift))
        return x * (1.0 if scale is None else scale) + shift

    op = ops.Custom(affine, out_shape=lambda x, *_: x, out_dtype=mstype.float32, func_type="pyfunc",
                    reg_info=info)
    op.add_prim_attr("shift", 1.0)
    np.testing.assert_allclose(op(Tensor(X)).asnumpy(), X + 1.0)
    assert seen == [(None, 1.0)]


@pytest.fixture(autouse=True)
def _cpu():
    context.set_context(device_target="CPU")


# ---- aot: attributes reach AotExtra by name --------------------------------------------------------------------
def test_aot_attribute_from_add_prim_attr():
    source = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "aot", "kernels",
                          "scale_pad_add.cc")
    info = (CustomRegOp("scale_pad_add").input(0, "x1").input(1, "x2").output(0, "y")
            .attr("scale", "required", "float").attr("paddings", "required", "listFloat", value=[2.0, 2.0])
            .dtype_format(DataType.F32_Default, DataType.F32_Default, DataType.F32_Default)
            .target("CPU").get_op_info())
    op = ops.Custom(source + ":CustomScalePadAdd", out_shape=lambda x, *_: x, out_dtype=lambda x, *_: x,
                    func_type="aot", reg_info=info)
    op.add_prim_attr("scale", 0.5)
    x = np.arange(20, dtype=np.float32).reshape(4, 5)
    y = np.ones((4, 5), np.float32)
    np.testing.assert_allclose(op(Tensor(x), Tensor(y)).asnumpy(), x + y * 0.5 * 2 + 4, rtol=1e-6)


def test_prim_attr_register_arguments_read_as_instance_attributes():
    from mindspore.ops import PrimitiveWithInfer, prim_attr_register

    class CusScale(PrimitiveWithInfer):
        @prim_attr_register
        def __init__(self, scale=2.0, keep_dims=False):
            self.init_prim_io_names(inputs=["x"], outputs=["y"])

        def infer_shape(self, x_shape):
            return x_shape if self.keep_dims else x_shape[:1]

    prim = CusScale(scale=3.0)
    assert prim.attrs["scale"] == 3.0 and prim.scale == 3.0 and prim.keep_dims is False
    assert prim.infer_shape([4, 2]) == [4]
    prim.add_prim_attr("keep_dims", True)
    assert prim.infer_shape([4, 2]) == [4, 2] and prim.name == "CusScale"
