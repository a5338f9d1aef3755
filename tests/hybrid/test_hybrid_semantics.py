"""Python semantics kept by the TVM lowering: bool/uint8 tensors, data-dependent bounds and indices,
tuple assignment, weak loop variables, compile-time folding, lowering errors."""
import numpy as np
import pytest

from npusim.custom.backends.base import CallAttrs, OpDesc
from npusim.custom.backends.hybrid import HybridBackend
from npusim.errors import HybridValueError
from npusim.hybrid import kernel
from npusim.hybrid.source import load_source
from npusim.hybrid.kernel_ir import lower_kernel


@kernel
def bool_and_uint8(a, m):
    out = output_tensor(a.shape, "bool")
    cnt = output_tensor((1,), "uint8")
    for i in range(a.shape[0]):
        out[i] = m[i] and a[i] > 3
        if m[i]:
            cnt[0] += a[i]
    return out, cnt


@kernel
def data_dependent(a, n, idx):
    out = output_tensor((a.shape[0],), "float32")
    picked = output_tensor(idx.shape, a.dtype)
    for i in range(n[0]):
        out[i] = 1.0
    for i in range(int32(a[0]), a.shape[0]):
        out[i] += 2.0
    for i in range(idx.shape[0]):
        picked[i] = a[idx[i]] + a[-1]
    return out, picked


@kernel
def fibonacci_swaps(a):
    out = output_tensor(a.shape, a.dtype)
    x = a[0]
    y = a[1]
    for i in range(a.shape[0]):
        x, y = y, x + y
        out[i] = x
    out[0], out[1] = out[1], out[0]
    return out


@kernel
def weak_loop_variable(a):
    out = output_tensor(a.shape, a.dtype)
    for i in range(a.shape[0]):
        out[i] = a[i] + i * 20
    return out


@kernel
def shape_from_attr(a, rows):
    n = a.shape[0] * rows + ceil_div(a.shape[0], 4)
    out = output_tensor((n, max(a.shape[0], 2)), a.dtype)
    for i, j in grid(out.shape):
        out[i, j] = sqrt(4.0) + i
    return out


@kernel
def float_shape(a, scale):
    out = output_tensor((scale,), a.dtype)
    return out


def run(func, *arrays, attrs=CallAttrs()):
    op = HybridBackend(OpDesc(func, func.__name__, None, "CPU", "hybrid"))
    shapes, dtypes = op.infer([a.shape for a in arrays], [a.dtype.name for a in arrays], attrs)
    got = op.launch(list(arrays), attrs, shapes, dtypes)
    expected = func(*arrays, *attrs.values)
    expected = expected if isinstance(expected, tuple) else (expected,)
    for g, e in zip(got, expected):
        assert g.dtype == e.dtype and g.shape == e.shape
        np.testing.assert_array_equal(g, e)
    return got


def test_bool_and_uint8_tensors():
    out, cnt = run(bool_and_uint8, np.array([1, 5, 7, 2], np.uint8), np.array([True, True, False, True]))
    np.testing.assert_array_equal(out, [False, True, False, False])
    assert cnt[0] == 8


def test_data_dependent_bounds_and_indices():
    a = np.array([2, 0, 0, 0, 0], np.float32)
    out, picked = run(data_dependent, a, np.array([3], np.int32), np.array([3, 0, 4], np.int64))
    np.testing.assert_array_equal(out, [1, 1, 3, 2, 2])
    np.testing.assert_array_equal(picked, [0, 2, 0])


def test_tuple_assignment_reads_before_writing():
    (out,) = run(fibonacci_swaps, np.array([1, 1, 0, 0, 0, 0], np.int32))
    np.testing.assert_array_equal(out, [2, 1, 3, 5, 8, 13])


def test_loop_variables_are_weak_like_python_ints():
    (out,) = run(weak_loop_variable, np.array([100, 50, 3, 4, 5, 6, 7], np.int8))
    assert out.dtype == np.int8


def test_compile_time_folding_and_int_attribute_shapes():
    (out,) = run(shape_from_attr, np.zeros(5, np.float32), attrs=CallAttrs(("rows",), (2,)))
    assert out.shape == (12, 5)
    np.testing.assert_array_equal(out[:, 0], 2.0 + np.arange(12))


def test_shape_from_a_run_time_value_is_rejected():
    with pytest.raises(HybridValueError, match="known at compile time"):
        lower_kernel(load_source(float_shape), [(3,)], ["float32"], [2.5])
