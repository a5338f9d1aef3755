"""out_shape=None: the output shape comes from <func>InferShape."""
import numpy as np
import pytest

from npusim.custom.backends.base import CallAttrs
from npusim.errors import KernelRuntimeError, OpValueError

from aot_test_support import kernel_source, make_backend


@pytest.mark.parametrize("axis,keep_dim", [(0, False), (1, False), (2, True), (1, True)])
def test_infer_shape_then_launch(axis, keep_dim):
    backend = make_backend(kernel_source("reduce_sum.cc") + ":CustomReduceSum")
    assert backend.can_infer
    x = np.arange(60, dtype=np.float32).reshape(3, 4, 5)
    attrs = CallAttrs(("axis", "keep_dim"), (axis, keep_dim))
    shapes, dtypes = backend.infer([x.shape], ["float32"], attrs)
    expected = np.sum(x, axis=axis, keepdims=keep_dim)
    assert shapes == [expected.shape] and dtypes == ["float32"]
    (out,) = backend.launch([x], attrs, shapes, dtypes)
    np.testing.assert_allclose(out, expected)


def test_infer_dtype_is_first_input_dtype():
    backend = make_backend(kernel_source("reduce_sum.cc") + ":CustomReduceSum")
    _, dtypes = backend.infer([(2, 3), (3,)], ["float16", "int32"], CallAttrs(("axis", "keep_dim"), (0, True)))
    assert dtypes == ["float16"]


def test_init_non_zero_return_during_first_launch():
    from npusim.errors import AotKernelError
    backend = make_backend(kernel_source("reduce_sum.cc") + ":CustomReduceSum")
    x = np.ones((2, 2), np.float32)
    with pytest.raises(AotKernelError, match="CustomReduceSumInit") as caught:
        backend.launch([x], CallAttrs(("axis", "keep_dim"), (5, False)), [(2,)], ["float32"])
    assert caught.value.code == 5


def test_missing_infer_shape_function():
    backend = make_backend(kernel_source("seed_add.cc") + ":CustomAdd")
    with pytest.raises(OpValueError, match="CustomAddInferShape"):
        backend.infer([(2, 2), (2, 2)], ["float32", "float32"], CallAttrs())


def test_infer_shape_that_throws():
    backend = make_backend(kernel_source("failing.cc") + ":CustomBadInfer")
    with pytest.raises(KernelRuntimeError, match="cannot infer this"):
        backend.infer([(2,)], ["float32"], CallAttrs())
