"""Issue 11 item 11: MindSpore's inner modules resolve as its tests import them, and ``mindspore.__version__``.

test_custom_tbe.py's bprop returns ``zeros_like(axis)`` for its attribute argument, imported from
``mindspore.ops.composite.multitype_ops.zeros_like_impl``; MindSpore's operator tests import
``mindspore.ops.operations._inner_ops as inner`` for CheckBprop and the dynamic-shape converters.
"""
import os
import re

import numpy as np
import pytest

import mindspore
import mindspore.ops as ops
from mindspore import Tensor
from mindspore.common import dtype as mstype
from mindspore.ops import composite as C
from mindspore.ops.composite import multitype_ops
from mindspore.ops.composite.multitype_ops.zeros_like_impl import zeros_like
from mindspore.ops.composite.multitype_ops.ones_like_impl import ones_like
from mindspore.ops.operations import _inner_ops as inner
from npusim.errors import UnsupportedError

README = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "README.md")


def square_with_bias(x, bias):
    return x * x + bias


def bprop(data, axis, out, dout):
    gradient = data * 2
    dx = gradient * dout
    return dx, zeros_like(axis)


def test_bprop_with_zeros_like_of_the_attribute_like_test_custom_tbe():
    op = ops.Custom(square_with_bias, lambda x, _: x, lambda x, _: x, func_type="pyfunc", bprop=bprop)
    x = np.array([1.0, 4.0, 9.0]).astype(np.float32)
    sens = np.array([1.0, 1.0, 1.0]).astype(np.float32)
    net = lambda t: op(t, 1.0)  # noqa: E731  (Net2.construct of the MindSpore test)
    dx = ops.GradOperation(sens_param=True)(net)(Tensor(x), Tensor(sens))
    assert np.allclose(np.array([2.0, 8.0, 18.0], np.float32), dx.asnumpy(), 0.0001, 0.0001)


def test_multitype_functions_take_tensors_and_python_values():
    assert zeros_like(1.0) == 0.0 and isinstance(zeros_like(1.0), float)
    assert zeros_like(3) == 0 and zeros_like(True) is False and ones_like(2.5) == 1.0
    t = Tensor(np.array([[1.5, 2.0]], np.float32))
    z = zeros_like(t)
    assert z.dtype == mstype.float32 and z.shape == (1, 2) and not z.asnumpy().any()
    assert zeros_like((t, 2.0))[1] == 0.0 and C.zeros_like is zeros_like
    assert multitype_ops.add(1, 2) == 3
    np.testing.assert_array_equal(multitype_ops.mul(t, 2.0).asnumpy(), [[3.0, 4.0]])
    np.testing.assert_array_equal(multitype_ops.negative(t).asnumpy(), [[-1.5, -2.0]])
    assert multitype_ops.getitem((4, 5), 1) == 5
    np.testing.assert_array_equal(multitype_ops.less(t, 1.8).asnumpy(), [[True, False]])


def test_unprovided_names_are_unsupported_errors_that_say_what_is_there():
    with pytest.raises(UnsupportedError, match=r"multitype_ops\.hyper_add.*zeros_like"):
        multitype_ops.hyper_add  # noqa: B018
    with pytest.raises(UnsupportedError, match=r"_inner_ops\.Cummin.*CheckBprop"):
        from mindspore.ops.operations._inner_ops import Cummin  # noqa: F401
    assert not hasattr(inner, "__wrapped__") and not hasattr(multitype_ops, "_private_helper")


def test_check_bprop_primitive():
    x = (Tensor(np.array([[2, 2], [2, 2]]), mindspore.float32),)
    y = (Tensor(np.array([[2, 2], [2, 2]]), mindspore.float32),)
    out = ops.operations._inner_ops.CheckBprop()(x, y)
    assert out is x
    with pytest.raises(ValueError, match=r"0th return value\(gradient of the 0th argument\) should have the same "
                                         r"shape as the 0th argument, which is:\(2, 2\), but got: \(4,\)"):
        inner.check_bprop((Tensor(np.ones(4, np.float32)),), y)
    with pytest.raises(TypeError, match=r"same dtype.*which is:Float32, but got: Float16"):
        inner.check_bprop((Tensor(np.ones((2, 2), np.float16)),), y)
    with pytest.raises(ValueError, match=r"number of return values\(gradients\).*which is:1 but got 2"):
        inner.check_bprop(x + x, y)


def test_convert_to_dynamic_is_identity_with_gradient():
    x = Tensor(np.array([1.0, -2.0], np.float32))
    for op in (inner.ConvertToDynamic(), inner.GpuConvertToDynamicShape()):
        np.testing.assert_array_equal(op(x).asnumpy(), x.asnumpy())
        grad = ops.GradOperation()(lambda t, op=op: ops.reduce_sum(op(t) * 3.0))(x)
        np.testing.assert_array_equal(grad.asnumpy(), [3.0, 3.0])
    cast = inner.MixedPrecisionCast()(mstype.float16, (x, Tensor(np.array([1], np.int32)), 2))
    assert cast[0].dtype == mstype.float16 and cast[1].dtype == mstype.int32 and cast[2] == 2


def test_version_is_the_matched_mindspore_release_and_documented():
    assert re.fullmatch(r"\d+\.\d+\.\d+", mindspore.__version__)
    with open(README, encoding="utf-8") as handle:
        readme = handle.read()
    assert f"`mindspore.__version__` is `{mindspore.__version__}`" in readme
