"""ops.Custom semantics exercised through the pyfunc backend (and the construction checks of every func_type)."""
import numpy as np
import pytest

import mindspore as ms
import mindspore.ops as ops
from mindspore import Tensor, context
from mindspore import dtype as mstype
from mindspore.ops import CustomRegOp, DataType, custom_info_register
from npusim.errors import GradientError, KernelSelectionError

X0 = np.array([[0.0, 0.0], [1.0, 1.0]], np.float32)
X1 = np.array([[2.0, 2.0], [3.0, 3.0]], np.float32)


def add(a, b):
    return a + b


def test_seed_pyfunc_add():
    op = ops.Custom(add, out_shape=lambda x, _: x, out_dtype=lambda x, _: x, func_type="pyfunc")
    out = op(Tensor(X0), Tensor(X1))
    assert isinstance(out, Tensor) and out.dtype == mstype.float32
    np.testing.assert_array_equal(out.asnumpy(), [[2, 2], [4, 4]])


def test_out_shape_as_values_and_none_default_func_type():
    op = ops.Custom(add, out_shape=[2, 2], out_dtype=mstype.float32)
    assert op.func_type == "pyfunc"  # plain function, no @kernel: the newest MindSpore default
    np.testing.assert_array_equal(op(Tensor(X0), Tensor(X1)).asnumpy(), X0 + X1)
    with pytest.raises(ValueError, match="out_shape"):
        ops.Custom(add, func_type="pyfunc")(Tensor(X0), Tensor(X1))


def test_output_converted_to_declared_dtype_and_shape_checked():
    op = ops.Custom(lambda a: a.ravel() * 2, out_shape=lambda s: s, out_dtype=mstype.float16, func_type="pyfunc")
    out = op(Tensor(X1))
    assert out.dtype == mstype.float16 and out.shape == (2, 2)
    bad = ops.Custom(lambda a: np.zeros(3), out_shape=lambda s: s, out_dtype=lambda t: t, func_type="pyfunc")
    with pytest.raises(ValueError, match="out_shape declares"):
        bad(Tensor(X1))


def test_multi_output_tuple():
    def split(a):
        return a + 1, (a > 0.5)
    op = ops.Custom(split, out_shape=lambda s: (s, s), out_dtype=lambda t: (t, mstype.bool_), func_type="pyfunc")
    y, mask = op(Tensor(X0))
    assert mask.dtype == mstype.bool_
    np.testing.assert_array_equal(mask.asnumpy(), X0 > 0.5)
    np.testing.assert_array_equal(y.asnumpy(), X0 + 1)


def test_no_output_and_scalar_output():
    seen = []
    op = ops.Custom(lambda a: seen.append(a.sum()), out_shape=(), out_dtype=(), func_type="pyfunc")
    assert op(Tensor(X1)) is None and seen == [10.0]
    total = ops.Custom(lambda a: a.sum(), out_shape=(), out_dtype=mstype.float32, func_type="pyfunc")
    out = total(Tensor(X1))
    assert out.shape == () and float(out) == 10.0


def test_attribute_arguments_follow_reg_info_order():
    info = CustomRegOp("Scale").input(0, "x").output(0, "y").attr("scale", "required", "float") \
        .attr("shift", "optional", "float", "0.5").attr("fixed", "required", "int", value=7) \
        .dtype_format(DataType.F32_Default, DataType.F32_Default).target("CPU").get_op_info()
    calls = []

    def scale(x, s, shift, fixed):
        calls.append((s, shift, fixed))
        return x * s + shift + fixed
    op = ops.Custom(scale, out_shape=lambda x, s: x, out_dtype=lambda x, s: x, func_type="pyfunc",
                    reg_info=info)
    out = op(Tensor(X1), 2)
    assert calls[-1] == (2.0, 0.5, 7) and isinstance(calls[-1][0], float)
    np.testing.assert_allclose(out.asnumpy(), X1 * 2 + 7.5)
    with pytest.raises(ValueError, match="'scale' is required"):
        op(Tensor(X1))


def test_reg_info_argument_wins_over_decorator():
    f32 = CustomRegOp().input(0, "x").output(0, "y").dtype_format(DataType.F32_Default, DataType.F32_Default) \
        .target("CPU").get_op_info()
    f16 = CustomRegOp().input(0, "x").output(0, "y").dtype_format(DataType.F16_Default, DataType.F16_Default) \
        .target("CPU").get_op_info()

    @custom_info_register(f16)
    def ident(x):
        return x
    op = ops.Custom(ident, out_shape=lambda s: s, out_dtype=lambda t: t, func_type="pyfunc", reg_info=f32)
    assert op(Tensor(X0)).dtype == mstype.float32
    with pytest.raises(TypeError):
        ops.Custom(ident, out_shape=lambda s: s, out_dtype=lambda t: t, func_type="pyfunc")(Tensor(X0))


def test_dtype_format_selection_error_lists_rows():
    info = CustomRegOp().input(0, "a").input(1, "b").output(0, "c") \
        .dtype_format(DataType.F16_Default, DataType.F16_Default, DataType.F16_Default) \
        .dtype_format(DataType.F32_Default, DataType.F32_Default, DataType.F32_Default).get_op_info()
    op = ops.Custom(add, out_shape=lambda x, _: x, out_dtype=lambda x, _: x, func_type="pyfunc", reg_info=info)
    with pytest.raises(KernelSelectionError) as err:
        op(Tensor(X0.astype(np.float64)), Tensor(X1.astype(np.float64)))
    assert isinstance(err.value, TypeError)
    msg = str(err.value)
    assert "'add'" in msg and "float64, float64" in msg
    assert "(float16, float16) -> (float16)" in msg and "(float32, float32) -> (float32)" in msg


def test_out_dtype_taken_from_selected_row_when_none():
    info = CustomRegOp().input(0, "a").output(0, "c") \
        .dtype_format(DataType.F32_Default, DataType.F16_Default).get_op_info()
    op = ops.Custom(lambda a: a, out_shape=lambda s: s, func_type="pyfunc", reg_info=info)
    assert op(Tensor(X0)).dtype == mstype.float16


def test_constructor_errors_match_mindspore():
    with pytest.raises(ValueError, match=r"'func_type' must be one of \["):
        ops.Custom(add, out_shape=[1], out_dtype=mstype.float32, func_type="cuda")
    with pytest.raises(TypeError, match="'out_shape' must be one of"):
        ops.Custom(add, out_shape=3, out_dtype=mstype.float32, func_type="pyfunc")
    with pytest.raises(TypeError, match="'out_dtype' must be one of"):
        ops.Custom(add, out_shape=[1], out_dtype=3, func_type="pyfunc")
    with pytest.raises(NotImplementedError, match="julia"):
        ops.Custom("f.jl:Mod:add", out_shape=[1], out_dtype=mstype.float32, func_type="julia")


def test_custom_op_builder_is_the_extension_builder():
    from npusim.extension import CustomOpBuilder
    assert ops.CustomOpBuilder is CustomOpBuilder  # tested in tests/extension


def _square_op_with_bprop(calls):
    def bprop(x, scale, out, dout):
        calls.append((scale, out.shape, dout.shape))
        return (x * 2 * scale * dout, 0)
    info = CustomRegOp().input(0, "x").output(0, "y").attr("scale", "required", "float").get_op_info()
    return ops.Custom(lambda x, s: x * x * s, out_shape=lambda s, _: s, out_dtype=lambda t, _: t,
                      func_type="pyfunc", bprop=bprop, reg_info=info)


def test_bprop_receives_attributes_out_and_dout():
    calls = []
    op = _square_op_with_bprop(calls)
    x = Tensor(np.array([1.0, 2.0, 3.0], np.float32))
    dx = ops.GradOperation(sens_param=True)(lambda t: op(t, 3.0))(x, Tensor(np.ones(3, np.float32)))
    np.testing.assert_array_equal(dx.asnumpy(), [6, 12, 18])
    assert calls == [(3.0, (3,), (3,))]


def test_multi_output_bprop_gets_tuples():
    def bprop(x, out, dout):
        assert isinstance(out, tuple) and isinstance(dout, tuple) and len(dout) == 2
        return (dout[0] * 2 + dout[1] * 3,)
    op = ops.Custom(lambda x: (x * 2, x * 3), out_shape=lambda s: (s, s), out_dtype=lambda t: (t, t),
                    func_type="pyfunc", bprop=bprop)
    g = ms.grad(lambda x: op(x)[0] + op(x)[1] * 0)(Tensor(np.array([1.0, 1.0], np.float32)))
    np.testing.assert_array_equal(g.asnumpy(), [2, 2])


def test_custom_inside_chain_of_builtins():
    calls = []
    op = _square_op_with_bprop(calls)
    g = ms.grad(lambda x: ops.reduce_sum(ops.exp(op(x * 2, 1.0))))(Tensor(np.array([0.1, 0.2], np.float32)))
    x = np.array([0.1, 0.2])
    np.testing.assert_allclose(g.asnumpy(), np.exp((2 * x) ** 2) * 2 * (2 * x) * 2, rtol=1e-5)


def test_missing_bprop_on_gradient_path_is_a_clear_error():
    op = ops.Custom(add, out_shape=lambda x, _: x, out_dtype=lambda x, _: x, func_type="pyfunc")
    with pytest.raises(GradientError, match="Custom op 'add' .* no bprop"):
        ms.grad(lambda a, b: op(a, b))(Tensor(X0), Tensor(X1))
    # off the gradient path it is fine
    y = Tensor(X1)
    g = ms.grad(lambda a: a * 2 + ops.stop_gradient(op(y, y)))(Tensor(X0))
    np.testing.assert_array_equal(g.asnumpy(), np.full((2, 2), 2.0))


def test_pyfunc_runs_under_every_device_target():
    for target in ("CPU", "GPU", "Ascend"):
        context.set_context(device_target=target)
        op = ops.Custom(add, out_shape=lambda x, _: x, out_dtype=lambda x, _: x, func_type="pyfunc")
        np.testing.assert_array_equal(op(Tensor(X0), Tensor(X1)).asnumpy(), X0 + X1)
