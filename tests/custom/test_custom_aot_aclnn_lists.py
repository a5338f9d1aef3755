"""Tensor lists: a reg-info ``dynamic`` input (aclnnCat's aclTensorList) and a dynamic output (aclnnSplitTensor),
with Python and C++ inference, in the style of MindSpore's test_custom_tensor_list."""
import numpy as np
import pytest

import mindspore as ms
import mindspore.ops as ops
from mindspore import Tensor, context
from mindspore.nn import Cell
from mindspore.ops import CustomRegOp, DataType

from aclnn_custom_support import infer_file  # noqa: F401  (fixture)

MODES = [ms.GRAPH_MODE, ms.PYNATIVE_MODE]
CAT_REG = CustomRegOp("aclnnCat").input(0, "x", "dynamic").attr("dim", "required", "int") \
    .output(0, "output", "required").dtype_format(DataType.F16_Default, DataType.F16_Default) \
    .target("Ascend").get_op_info()
SPLIT_REG = CustomRegOp("aclnnSplitTensor").input(0, "x", "required").attr("split_size", "required", "int") \
    .attr("dim", "required", "int").output(0, "output", "dynamic") \
    .dtype_format(DataType.F16_Default, DataType.F16_Default).target("Ascend").get_op_info()


@pytest.fixture(autouse=True)
def ascend():
    context.set_context(device_target="Ascend")


def concat_out_shape(x, _):
    """MindSpore passes the shapes of a dynamic input as one list."""
    out = list(x[0])
    out[1] = x[0][1] + x[1][1]
    return out


class ConcatNet(Cell):
    def __init__(self, func, out_shape, out_dtype, bprop=None):
        super().__init__()
        self.concat = ops.Custom(func, out_shape, out_dtype, func_type="aot", bprop=bprop, reg_info=CAT_REG)

    def construct(self, x1, x2, axis):
        return self.concat((x1, x2), axis)


def pieces(*shapes):
    rng = np.random.default_rng(3)
    return [rng.random(shape).astype(np.float32) for shape in shapes]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("shapes, axis", [(((2, 2), (2, 3)), 1), (((3, 2, 3), (3, 3, 3)), 1)])
def test_concat_with_python_infer(mode, shapes, axis):
    context.set_context(mode=mode)
    a, b = pieces(*shapes)
    out = ConcatNet("aclnnCat", concat_out_shape, lambda x, _: x[0])(Tensor(a), Tensor(b), axis)
    assert out.dtype == ms.float32
    np.testing.assert_array_equal(out.asnumpy(), np.concatenate([a, b], axis))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("py_shape, py_dtype", [(False, False), (False, True), (True, False)])
def test_concat_with_cpp_infer_for_shape_type_or_both(mode, py_shape, py_dtype, infer_file):
    context.set_context(mode=mode)
    a, b = pieces((2, 2), (2, 3))
    net = ConcatNet(f"{infer_file}:aclnnCat", concat_out_shape if py_shape else None,
                    (lambda x, _: x[0]) if py_dtype else None)
    net.concat.add_prim_attr("attr_axis", 1)
    out = net(Tensor(a), Tensor(b), 1)
    assert out.shape == (2, 5) and out.dtype == ms.float32
    np.testing.assert_array_equal(out.asnumpy(), np.concatenate([a, b], 1))


@pytest.mark.parametrize("mode", MODES)
def test_concat_bprop_gets_the_list_and_returns_its_gradients(mode):
    context.set_context(mode=mode)

    def bprop(xs, axis, out, dout):
        return [dout[:, :2], dout[:, 2:] * 2], 0

    a, b = pieces((2, 2), (2, 3))
    net = ConcatNet("aclnnCat", concat_out_shape, lambda x, _: x[0], bprop=bprop)
    grads = ops.GradOperation(get_all=True)(net)(Tensor(a), Tensor(b), 1)
    np.testing.assert_array_equal(grads[0].asnumpy(), np.ones((2, 2), np.float32))
    np.testing.assert_array_equal(grads[1].asnumpy(), np.full((2, 3), 2, np.float32))


def test_concat_without_reg_info_takes_a_list_argument(infer_file):
    """No reg info (MindSpore 2.6 generates one from CANN's files): a list of tensors is the aclTensorList, for
    the operator, the Python infer functions and C++ infer alike."""
    a, b, c = pieces((3, 1), (3, 2), (3, 4))
    cat = ops.Custom("aclnnCat", lambda xs, _: [xs[0][0], sum(s[1] for s in xs)], lambda xs, _: xs[0],
                     func_type="aot")
    np.testing.assert_array_equal(cat([Tensor(a), Tensor(b), Tensor(c)], 1).asnumpy(), np.concatenate([a, b, c], 1))
    cpp = ops.Custom(f"{infer_file}:aclnnCat", None, None, func_type="aot")
    cpp.add_prim_attr("attr_axis", 1)
    out = cpp([Tensor(a), Tensor(b)], 1)
    assert out.shape == (3, 3)
    np.testing.assert_array_equal(out.asnumpy(), np.concatenate([a, b], 1))


@pytest.mark.parametrize("mode", MODES)
def test_split_returns_the_dynamic_output_as_a_tuple(mode):
    context.set_context(mode=mode)
    split = ops.Custom("aclnnSplitTensor", lambda x, size, dim: [[x[0] // 2, x[1]], [x[0] // 2, x[1]]],
                       lambda x, size, dim: [x, x], func_type="aot", reg_info=SPLIT_REG)
    a = np.arange(20, dtype=np.float32).reshape(10, 2)
    out = split(Tensor(a), 5, 0)
    assert isinstance(out, tuple) and len(out) == 2
    np.testing.assert_array_equal(out[0].asnumpy(), a[:5])
    np.testing.assert_array_equal(out[1].asnumpy(), a[5:])


def test_split_with_cpp_infer_of_several_outputs(infer_file):
    split = ops.Custom(f"{infer_file}:aclnnSplitTensor", None, None, func_type="aot", reg_info=SPLIT_REG)
    a = np.arange(24, dtype=np.float16).reshape(4, 6)
    out = split(Tensor(a), 3, 1)
    assert [o.shape for o in out] == [(4, 3), (4, 3)] and all(o.dtype == ms.float16 for o in out)
    np.testing.assert_array_equal(np.concatenate([o.asnumpy() for o in out], 1), a)


def test_split_with_size_takes_an_int_array_attribute():
    reg = CustomRegOp("aclnnSplitWithSize").input(0, "x", "required").attr("sizes", "required", "listInt") \
        .attr("dim", "required", "int").output(0, "y", "dynamic").target("Ascend").get_op_info()
    split = ops.Custom("aclnnSplitWithSize", lambda x, sizes, dim: [[s, x[1]] for s in sizes],
                       lambda x, sizes, dim: [x] * len(sizes), func_type="aot", reg_info=reg)
    a = np.arange(12, dtype=np.int32).reshape(6, 2)
    out = split(Tensor(a), (1, 2, 3), 0)
    assert [o.shape for o in out] == [(1, 2), (2, 2), (3, 2)]
    np.testing.assert_array_equal(out[2].asnumpy(), a[3:])
