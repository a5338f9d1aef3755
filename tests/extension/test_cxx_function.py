"""C++ ops written with MindSpore's ``Function<T>`` / ``AutogradContext`` API (npusim's ms_extension headers):
their gradients join npusim's tape with MindSpore's rules and error texts, and tensors cross without copies."""
import numpy as np
import pytest

import mindspore as ms
from mindspore import Parameter, Tensor, nn, ops
from npusim.errors import ExtensionGradientError, ExtensionRuntimeError, ExtensionTypeError
from cxx_testkit import extension


@pytest.fixture(scope="module")
def fops(tmp_path_factory):
    return extension("function_ops.cpp", tmp_path_factory)


def f32(*values):
    return Tensor(np.array(values, dtype=np.float32))


# ---- the seed: value_and_grad over inputs and a Parameter -----------------------------------------------------------
def test_seed_mul_value_and_grad_over_inputs_and_a_parameter(fops):
    class MyNet(nn.Cell):
        def __init__(self):
            super().__init__()
            self.p = Parameter(2.0, requires_grad=True)

        def construct(self, x, y):
            return fops.mul(fops.mul(x, y), self.p)

    x = Tensor(1.0, ms.float32) * 2
    y = Tensor(1.0, ms.float32) * 3
    net = MyNet()
    out, grads = ms.value_and_grad(net, grad_position=(0, 1), weights=net.trainable_params())(x, y)
    assert out.asnumpy().item() == 12.0 and out.shape == () and out.dtype == ms.float32
    assert [g.asnumpy().item() for g in grads[0]] == [6.0, 4.0]
    assert len(grads[1]) == 1 and grads[1][0].asnumpy().item() == 6.0
    (gp,) = ops.GradOperation(get_by_list=True)(net, net.trainable_params())(x, y)
    assert gp.asnumpy().item() == 6.0


def test_cxx_ops_mix_with_builtin_and_custom_ops_under_grad_operation(fops):
    square = ops.Custom(lambda a: a * a, out_shape=lambda a: a, out_dtype=lambda a: a, func_type="pyfunc",
                        bprop=lambda a, out, dout: (2 * a * dout,))

    def net(x, y):
        z = fops.mul(x * 2, y)             # built-in mul, then the C++ op
        return square(fops.add(z, y)).sum()

    x, y = f32(1, 2), f32(3, 4)
    gx, gy = ops.GradOperation(get_all=True)(net)(x, y)
    z = 2 * x.asnumpy() * y.asnumpy() + y.asnumpy()
    np.testing.assert_allclose(gx.asnumpy(), 2 * z * 2 * y.asnumpy())
    np.testing.assert_allclose(gy.asnumpy(), 2 * z * (2 * x.asnumpy() + 1))
    assert ms.grad(lambda a: fops.mul(a, a).sum())(f32(3, -1)).asnumpy().tolist() == [6.0, -2.0]


def test_forward_without_gradients_returns_plain_tensors(fops):
    x, y = f32(1, 2, 3), f32(2, 2, 2)
    out = fops.mul(x, y)
    assert isinstance(out, Tensor) and out.asnumpy().tolist() == [2.0, 4.0, 6.0]
    assert out._node is None
    assert fops.identity(x) is x   # no gradient computation: the input itself comes back


# ---- tensors cross without copies ---------------------------------------------------------------------------------
def test_inplace_output_is_written_into_the_callers_buffer(fops):
    x, y = f32(1, 2), f32(3, 4)
    buffer = x.asnumpy()
    out = fops.inplace_mul(x, y)
    assert out is x and buffer.tolist() == [3.0, 8.0]


def test_parameters_are_tensors_and_none_is_a_null_tensor(fops):
    p = Parameter(Tensor(np.array([1.5, 2.0], np.float32)), name="w")
    assert fops.mul(p, f32(2, 2)).asnumpy().tolist() == [3.0, 4.0]
    with pytest.raises(TypeError):
        fops.mul(np.ones(2, np.float32), f32(1, 1))   # a numpy array is not a mindspore.Tensor


# ---- gradient rules -------------------------------------------------------------------------------------------------
def test_mark_non_differentiable_output_carries_no_gradient(fops):
    def net(x, y):
        return fops.mul_no_diff_out(x * y, y)

    gx, gy = ops.GradOperation(get_all=True)(net)(f32(2, 2), f32(3, 3))
    assert gx.asnumpy().tolist() == [0.0, 0.0] and gy.asnumpy().tolist() == [0.0, 0.0]


def test_mark_non_differentiable_input_output_is_a_detached_copy(fops):
    seen = {}

    def net(x):
        same, square = fops.no_diff_in(x)
        seen["same"] = same
        return x * same

    x = f32(2, 5)
    (gx,) = ops.GradOperation(get_all=True)(net)(x)
    assert gx.asnumpy().tolist() == [2.0, 5.0]        # d(x * stop_gradient(x))/dx
    assert seen["same"] is not x and seen["same"]._node is None


def test_set_materialize_grads_false_gives_null_for_unused_outputs(fops):
    x, y = f32(2), f32(3)
    (gx, gy) = ops.GradOperation(get_all=True)(lambda a, b: fops.mul_add(a, b, True)[0])(x, y)
    assert not fops.second_grad_null() and (gx.asnumpy().item(), gy.asnumpy().item()) == (3.0, 2.0)
    (gx, gy) = ops.GradOperation(get_all=True)(lambda a, b: fops.mul_add(a, b, False)[0])(x, y)
    assert fops.second_grad_null() and (gx.asnumpy().item(), gy.asnumpy().item()) == (3.0, 2.0)
    (gx, gy) = ops.GradOperation(get_all=True)(lambda a, b: sum(fops.mul_add(a, b, False)))(x, y)
    assert not fops.second_grad_null() and (gx.asnumpy().item(), gy.asnumpy().item()) == (4.0, 3.0)


def test_needs_input_grad_counts_tensor_inputs_only(fops):
    x, y = f32(1, 2), f32(3, 4)
    gx = ms.grad(lambda a: fops.flag_probe(a, 7, y).sum())(x)
    assert fops.forward_flags() == [True, False, True, False]
    assert gx.asnumpy().tolist() == [1.0, 1.0]
    gy = ms.grad(lambda b: fops.flag_probe(x, 7, b).sum())(y)
    assert fops.forward_flags() == [False, True, False, True] and gy.asnumpy().tolist() == [1.0, 1.0]
    fops.flag_probe(x, 7, y)
    assert fops.forward_flags() == [False, False, False, False]


def test_wrong_gradient_count_is_mindspores_runtime_error(fops):
    net = lambda x, y: fops.wrong_count(x, y)  # noqa: E731
    with pytest.raises(RuntimeError, match=r"returned an incorrect number of gradients \(expected 2, got 1\)") as err:
        ms.value_and_grad(net, grad_position=(0, 1))(f32(2), f32(3))
    assert isinstance(err.value, ExtensionGradientError) and "Function[" in str(err.value)
    assert "WrongCount" in str(err.value)


def test_gradient_for_a_non_tensor_input_is_refused(fops):
    with pytest.raises(RuntimeError, match="position 2, but the corresponding forward input was not a Tensor"):
        ms.value_and_grad(lambda x: fops.grad_for_int(x, 3), grad_position=0)(f32(2))


def test_dirty_leaf_that_needs_grad_is_refused(fops):
    with pytest.raises(RuntimeError, match="A leaf tensor that need grad is being used in an inplace operator"):
        ops.GradOperation(get_all=True)(lambda x, y: fops.inplace_mul(x, y))(f32(2, 2), f32(3, 3))


def test_dirty_intermediate_takes_the_new_node(fops):
    def net(x, y):
        z = x * 1.0
        out = fops.inplace_mul(z, y)
        assert out is z
        return out * x

    gx, gy = ops.GradOperation(get_all=True)(net)(f32(2, 3), f32(5, 7))
    # out = (x * y) * x: d/dx = 2xy through both paths; the C++ Backward gives y no gradient (nullptr = zero)
    assert gx.asnumpy().tolist() == [20.0, 42.0] and gy.asnumpy().tolist() == [0.0, 0.0]


def test_returned_input_is_a_new_tensor_with_the_functions_gradient(fops):
    seen = {}

    def net(x):
        out = fops.identity(x)
        seen["out"] = out
        return out

    (gx,) = ops.GradOperation(get_all=True, sens_param=True)(net)(f32(1, 2), f32(3, 4))
    assert gx.asnumpy().tolist() == [9.0, 16.0]     # Backward returns dout * dout
    assert seen["out"]._node is not None


def test_scalar_int_array_and_tensor_list_arguments_with_gradients(fops):
    x = f32(1, 2, 3)
    g = ms.grad(lambda a: fops.scale(a, 2.5).sum())(x)
    assert g.asnumpy().tolist() == [2.5, 2.5, 2.5] and fops.scale(x, 2.0).asnumpy().tolist() == [2.0, 4.0, 6.0]
    table = Tensor(np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], np.float32))
    idx = Tensor(np.array([1, 0]), ms.int64)
    assert fops.pick(table, [idx, idx]).asnumpy().tolist() == [5.0, 1.0]
    assert fops.expand(x, [2, 3]).asnumpy().tolist() == [[1.0, 2.0, 3.0]] * 2
    assert fops.add(x, f32(1, 1, 1)).asnumpy().tolist() == [2.0, 3.0, 4.0]


# ---- host code and internals ----------------------------------------------------------------------------------------
def test_cpu_host_op_reads_and_writes_host_memory_with_gradient(fops):
    x = f32(1, -2, 3)
    out, gx = ms.value_and_grad(lambda a: fops.host_square(a).sum())(x)
    assert out.asnumpy().item() == 14.0 and gx.asnumpy().tolist() == [2.0, -4.0, 6.0]
    with pytest.raises(TypeError, match="HostSquare takes Float32") as err:
        fops.host_square(Tensor(np.ones(2, np.int32)))
    assert isinstance(err.value, ExtensionTypeError)


def test_internal_pyboost_route_with_launch_aclnn(fops):
    x, y = f32(1, 2), f32(3, 5)
    out, (gx, gy) = ms.value_and_grad(lambda a, b: fops.pyboost_mul(a, b).sum(), grad_position=(0, 1))(x, y)
    assert out.asnumpy().item() == 13.0
    assert gx.asnumpy().tolist() == [3.0, 5.0] and gy.asnumpy().tolist() == [1.0, 2.0]


def test_abs_then_reduce_sum_with_optional_arguments(fops):
    x = Tensor(np.array([[1.0, -2.0], [-3.0, 4.0]], np.float32))
    assert fops.abs_reduce_sum(x).asnumpy().item() == 10.0
    np.testing.assert_array_equal(fops.abs_reduce_sum(x, [1], True).asnumpy(), [[3.0], [7.0]])
    out = fops.abs_reduce_sum(x, axis=[0], dtype=42)   # MindSpore's TypeId of Float16
    assert out.dtype == ms.float16 and out.asnumpy().tolist() == [4.0, 6.0]


def test_ms_log_exception_is_a_runtime_error(fops):
    with pytest.raises(RuntimeError, match="user error: boom") as err:
        fops.raise_log_exception("boom")
    assert isinstance(err.value, ExtensionRuntimeError)
