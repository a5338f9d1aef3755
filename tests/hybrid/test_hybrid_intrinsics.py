"""Every DSL intrinsic and loop kind, compiled with TVM and run directly on numpy, against numpy references."""
import numpy as np
import pytest

from npusim.custom.backends.base import CallAttrs, OpDesc
from npusim.custom.backends.hybrid import HybridBackend
from npusim.hybrid import kernel

UNARY_ROWS = 17


@kernel
def all_unary(a):
    out = output_tensor((17, a.shape[0]), a.dtype)
    for i in range(a.shape[0]):
        x = a[i]
        out[0, i] = sqrt(x)
        out[1, i] = sign(x - 1.0)
        out[2, i] = log(x)
        out[3, i] = tanh(x)
        out[4, i] = exp(x)
        out[5, i] = abs(x - 1.5)
        out[6, i] = rsqrt(x)
        out[7, i] = erf(x - 1.0)
        out[8, i] = sin(x)
        out[9, i] = cos(x)
        out[10, i] = atan(x)
        out[11, i] = expm1(x - 1.0)
        out[12, i] = floor(x * 2.0)
        out[13, i] = ceil(x * 2.0)
        out[14, i] = trunc(x * 2.0 - 3.0)
        out[15, i] = round(x * 2.0)
        out[16, i] = float32(isnan(x)) + float32(isinf(x)) * 2.0 + float32(isfinite(x)) * 4.0
    return out


def unary_reference(x):
    from math import erf
    erf_v = np.vectorize(erf)
    return np.stack([np.sqrt(x), np.sign(x - 1), np.log(x), np.tanh(x), np.exp(x), np.abs(x - 1.5),
                     1 / np.sqrt(x), erf_v(x - 1.0), np.sin(x), np.cos(x), np.arctan(x), np.expm1(x - 1),
                     np.floor(x * 2), np.ceil(x * 2), np.trunc(x * 2 - 3), np.round(x * 2),
                     np.isnan(x) + np.isinf(x) * 2.0 + np.isfinite(x) * 4.0])


@kernel
def binary_ops(a, b):
    out = output_tensor((12, a.shape[0]), a.dtype)
    for i in range(a.shape[0]):
        out[0, i] = power(a[i], b[i])
        out[1, i] = atan2(a[i], b[i] - 1.5)
        out[2, i] = max(a[i], b[i])
        out[3, i] = min(a[i], b[i], 1.0)
        out[4, i] = a[i] / b[i] - a[i] // b[i] + a[i] % b[i]
        out[5, i] = a[i] ** 2 + b[i] ** 0.5
        out[6, i] = -a[i] + (+b[i])
        out[7, i] = 1.0 if (a[i] > b[i] and not a[i] > 2.0) or b[i] == 1.0 else 0.0
        out[8, i] = ceil_div(int32(a[i] * 10.0), int32(b[i] * 3.0 + 1.0))
        out[9, i] = a[i] * 2 - 1
        out[10, i] = a.shape[0] / 2 + len(a.shape) + ceil_div(a.shape[0], 4)
        out[11, i] = 1.5 < a[i] <= 2.5
    return out


def binary_reference(a, b):
    n = a.shape[0]
    ai, bi = (a * 10).astype(np.int32), (b * 3 + 1).astype(np.int32)
    return np.stack([np.power(a, b), np.arctan2(a, b - 1.5), np.maximum(a, b), np.minimum(np.minimum(a, b), 1),
                     a / b - a // b + a % b, a ** 2 + b ** 0.5, -a + b,
                     (((a > b) & ~(a > 2)) | (b == 1)).astype(a.dtype), -(-ai // bi), a * 2 - 1,
                     np.full(n, n / 2 + 1 + -(-n // 4)), ((a > 1.5) & (a <= 2.5)).astype(a.dtype)])


@kernel
def casts(a):
    out = output_tensor((7, a.shape[0]), "float64")
    for i in range(a.shape[0]):
        out[0, i] = int8(a[i] * 10.0)
        out[1, i] = int16(a[i] * 100.0)
        out[2, i] = int32(a[i] * 1000.0)
        out[3, i] = int64(a[i] * 10000.0)
        out[4, i] = float16(a[i])
        out[5, i] = float32(a[i])
        out[6, i] = float64(a[i])
    return out


@kernel
def loop_kinds(a):
    out = output_tensor(a.shape, a.dtype)
    acc = output_tensor((8,), "int32")
    for i in serial(a.shape[0]):
        for j in vectorize(a.shape[1]):
            out[i, j] = a[i, j] * 2.0
    for i in parallel(1, a.shape[0], 2):
        for j in reduce(a.shape[1]):
            acc[0] = acc[0] + 1
    for k in range(a.shape[1] - 1, -1, -1):
        acc[1] = acc[1] * 10 + k
    for idx in grid(a.shape):
        acc[2] += idx[0] + idx[1]
    for i, j in grid((2, 3)):
        acc[3] += i * j
    for i in range(3, 1):
        acc[4] += 1
    with attr("pragma", 1):
        with block_realize(out):
            acc[5] = 7
    return out, acc


def backend(func):
    return HybridBackend(OpDesc(func, func.__name__, None, "CPU", "hybrid"))


def compiled(func, *arrays, attrs=CallAttrs()):
    """Run ``func`` through the hybrid backend (infer, then launch)."""
    op = backend(func)
    shapes, dtypes = op.infer([a.shape for a in arrays], [a.dtype.name for a in arrays], attrs)
    return op.launch(list(arrays), attrs, shapes, dtypes)


X = np.linspace(0.2, 3.0, 8)


@pytest.mark.parametrize("dtype", ["float32", "float16", "float64"])
def test_unary_math(dtype):
    x = X.astype(dtype)
    (got,) = compiled(all_unary, x)
    emulated = all_unary(x)
    tol = 2e-3 if dtype == "float16" else 1e-5
    assert got.dtype == emulated.dtype == np.dtype(dtype) and got.shape == (UNARY_ROWS, 8)
    np.testing.assert_allclose(got, unary_reference(x.astype(np.float64)), rtol=tol, atol=tol)
    np.testing.assert_allclose(emulated.astype(np.float64), unary_reference(x.astype(np.float64)), rtol=tol,
                               atol=1e-6 if dtype != "float16" else tol)


def test_unary_math_on_special_values():
    x = np.array([np.nan, np.inf, -np.inf, 0.5], np.float32)
    (got,) = compiled(all_unary, x)
    np.testing.assert_array_equal(got[16], [1.0, 2.0, 2.0, 4.0])
    with np.errstate(invalid="ignore"):
        np.testing.assert_array_equal(got[16], all_unary(x)[16])


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_binary_ops_and_operators(dtype):
    a, b = X.astype(dtype), X[::-1].astype(dtype)
    (got,) = compiled(binary_ops, a, b)
    tol = 3e-3 if dtype == "float16" else 1e-5
    reference = binary_reference(a, b).astype(np.float64)
    np.testing.assert_allclose(got.astype(np.float64), reference, rtol=tol, atol=tol)
    np.testing.assert_allclose(binary_ops(a, b).astype(np.float64), reference, rtol=tol, atol=tol)


def test_casts():
    a = np.array([0.123, -1.987, 2.5, 3.14159], np.float32)
    (got,) = compiled(casts, a)
    reference = np.stack([(a * 10).astype(np.int8), (a * 100).astype(np.int16), (a * 1000).astype(np.int32),
                          (a * 10000).astype(np.int64), a.astype(np.float16), a, a.astype(np.float64)])
    np.testing.assert_array_equal(got, reference.astype(np.float64))
    np.testing.assert_array_equal(casts(a), got)


def test_loop_kinds_grid_and_scopes():
    a = np.arange(20, dtype=np.float32).reshape(5, 4)
    out, acc = compiled(loop_kinds, a)
    np.testing.assert_array_equal(out, a * 2)
    # parallel(1, 5, 2) → i = 1, 3; range(3, -1, -1) → 3 2 1 0; grid sums; empty range; with-scope body
    np.testing.assert_array_equal(acc, [8, 3210, sum(i + j for i in range(5) for j in range(4)), 3, 0, 7, 0, 0])
    emulated_out, emulated_acc = loop_kinds(a)
    np.testing.assert_array_equal(emulated_out, out)
    np.testing.assert_array_equal(emulated_acc, acc)
