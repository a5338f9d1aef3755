"""HybridBackend / AkgBackend: seed programs, dtypes, locals, attributes, caching, in-place outputs, errors."""
import numpy as np
import pytest

from npusim.custom.backends.base import CallAttrs, OpDesc
from npusim.custom.backends.hybrid import AkgBackend, HybridBackend, akg_kind
from npusim.errors import KernelBuildError, OpTypeError, OpValueError, UnsupportedError
from npusim.hybrid import kernel
from npusim.hybrid.compile import RESOURCE, KernelCache
from npusim.sim.runtime import current_runtime


# ---- the seed programs (plain functions, func_type="akg") ------------------------------------------------------
def add(a, b):
    c = output_tensor(a.shape, a.dtype)
    for i0 in range(a.shape[0]):
        for i1 in range(a.shape[1]):
            c[i0, i1] = a[i0, i1] + b[i0, i1]
    return c


def square(x):
    y = output_tensor(x.shape, x.dtype)
    for i0 in range(x.shape[0]):
        y[i0] = y[i0] * y[i0]
    return y


def square_grad(x, dout):
    dx = output_tensor(x.shape, x.dtype)
    for i0 in range(x.shape[0]):
        dx[i0] = 2.0 * x[i0]
    for i0 in range(x.shape[0]):
        dx[i0] = dx[i0] * dout[i0]
    return dx


# ---- more kernels ------------------------------------------------------------------------------------------------
@kernel
def multi_output(a, b):
    c = output_tensor(a.shape, a.dtype)
    d = output_tensor(a.shape, a.dtype)
    for i0 in range(a.shape[0]):
        for i1 in range(a.shape[1]):
            c[i0, i1] = a[i0, i1] + b[i0, i1]
            d[i0, i1] = a[i0, i1] * b[i0, i1]
    return c, d


@kernel
def dtype_and_cast_example(a, b):
    d = allocate(a.shape, "float16")
    c = output_tensor(a.shape, "float16")
    for i0 in range(a.shape[0]):
        for i1 in range(a.shape[1]):
            d[i0, i1] = float16(1.0)
            c[i0, i1] = d[i0, i1] + float16(a[i0, i1])
            c[i0, i1] = c[i0, i1] * float16(b[i0, i1])
    return c


@kernel
def int_ops(a, b):
    out = output_tensor((6, a.shape[0]), a.dtype)
    for i in range(a.shape[0]):
        out[0, i] = a[i] // b[i]
        out[1, i] = a[i] % b[i]
        out[2, i] = a[i] / b[i] * 10
        out[3, i] = abs(a[i]) + sign(a[i]) * 100
        out[4, i] = (a[i] & 3) | (b[i] ^ 1)
        out[5, i] = max(a[i], 0) - min(b[i], 2) + a[i] ** 3
    return out


@kernel
def scalar_locals(a, bias):
    out = output_tensor(a.shape, a.dtype)
    count = output_tensor((1,), "int32")
    total = 0.0
    n = 0
    for i in range(a.shape[0]):
        t = a[i] * 2.0
        if t > 1.0:
            t = t - 1.0
            n += 1
        elif t < -1.0:
            t = -t
        else:
            t = 0.0
        out[i] = (t if t < 2.5 else 2.5) + bias
        total += out[i]
    for i in range(a.shape[0]):
        out[i] = out[i] - total / a.shape[0]
    count[0] = n
    return out, count


@kernel
def with_attrs(a, scale, repeat, offset=0.5):
    out = output_tensor((a.shape[0] * repeat,), a.dtype)
    for i in range(a.shape[0] * repeat):
        if repeat == 2:
            out[i] = a[i % a.shape[0]] * scale + offset
        else:
            out[i] = a[i] * scale
    return out


@kernel
def static_dtype_branch(a):
    out = output_tensor(a.shape, "float32")
    for i in range(a.shape[0]):
        if a.dtype == "float16":
            out[i] = 16.0
        else:
            out[i] = 32.0
    return out


def inplace_two_outputs(a, b):
    c = allocate(a.shape, a.dtype, 'local')
    d = output_tensor(b.shape, b.dtype)
    for i0 in range(a.shape[0]):
        for i1 in range(a.shape[1]):
            c[i0, i1] = a[i0, i1] + b[i0, i1]
            a[i0, i1] = c[i0, i1] * b[i0, i1]
    for j0 in range(b.shape[0]):
        for j1 in range(b.shape[1]):
            d[j0, j1] = c[j0, j1]
    return a, d


def compute_in_prose(a):
    """compute the negation"""
    b = output_tensor(a.shape, a.dtype)
    for i in range(a.shape[0]):
        b[i] = -a[i]
    return b


def make(func, func_type="hybrid"):
    cls = HybridBackend if func_type == "hybrid" else AkgBackend
    return cls(OpDesc(func, func.__name__, None, "CPU", func_type))


def call(op, *arrays, attrs=CallAttrs()):
    shapes, dtypes = op.infer([a.shape for a in arrays], [a.dtype.name for a in arrays], attrs)
    return op.launch(list(arrays), attrs, shapes, dtypes)


A = np.random.RandomState(0).rand(3, 4).astype(np.float32)
B = np.random.RandomState(1).rand(3, 4).astype(np.float32)


def test_seed_add_under_akg():
    op = make(add, "akg")
    x0 = np.array([[0.0, 0.0], [1.0, 1.0]], np.float32)
    x1 = np.array([[2.0, 2.0], [3.0, 3.0]], np.float32)
    (out,) = op.launch([x0, x1], CallAttrs(), [(2, 2)], ["float32"])
    np.testing.assert_array_equal(out, [[2.0, 2.0], [4.0, 4.0]])


def test_seed_square_reads_zeroed_output_and_square_grad():
    x = np.array([1.0, 4.0, 9.0], np.float32)
    op = make(square, "akg")
    for _ in range(2):   # outputs are zeroed before every launch
        (y,) = call(op, x)
        np.testing.assert_array_equal(y, [0.0, 0.0, 0.0])
    (dx,) = call(make(square_grad, "akg"), x, np.ones(3, np.float32))
    np.testing.assert_array_equal(dx, [2.0, 8.0, 18.0])


def test_multi_output_infer_and_launch():
    op = make(multi_output)
    shapes, dtypes = op.infer([A.shape, B.shape], ["float32", "float32"], CallAttrs())
    assert shapes == [(3, 4), (3, 4)] and dtypes == ["float32", "float32"]
    c, d = op.launch([A, B], CallAttrs(), shapes, dtypes)
    np.testing.assert_allclose(c, A + B)
    np.testing.assert_allclose(d, A * B)


def test_float16_literals_and_casts():
    a, b = A.astype(np.float16), B.astype(np.float16)
    (out,) = call(make(dtype_and_cast_example), a, b)
    assert out.dtype == np.float16
    np.testing.assert_allclose(out, dtype_and_cast_example(a, b), rtol=1e-3)
    np.testing.assert_allclose(out, (1 + a) * b, rtol=2e-3)


def test_int32_arithmetic_follows_python():
    a = np.array([-7, 7, -7, 7, 9, 0, 5, 12], np.int32)
    b = np.array([2, -2, -2, 2, 4, 3, 1, -5], np.int32)
    (out,) = call(make(int_ops), a, b)
    assert out.dtype == np.int32
    expected = np.stack([a // b, a % b, (a / b * 10).astype(np.int32), np.abs(a) + np.sign(a) * 100,
                         (a & 3) | (b ^ 1), np.maximum(a, 0) - np.minimum(b, 2) + a ** 3])
    np.testing.assert_array_equal(out, expected)
    np.testing.assert_array_equal(int_ops(a, b), expected)


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_scalar_locals_if_elif_else_and_float_attr(dtype):
    a = np.random.RandomState(2).randn(7).astype(dtype)
    attrs = CallAttrs(("bias",), (0.25,))
    out, count = call(make(scalar_locals), a, attrs=attrs)
    want_out, want_count = scalar_locals(a, 0.25)
    assert out.dtype == np.dtype(dtype) and count.dtype == np.int32
    np.testing.assert_allclose(out, want_out, rtol=2e-3, atol=2e-3)
    np.testing.assert_array_equal(count, want_count)
    assert count[0] == np.sum(a * 2 > 1)


def _kernel_cache():
    return current_runtime().resource(RESOURCE, KernelCache)


def test_attributes_static_int_runtime_float_and_default():
    KERNEL_CACHE = _kernel_cache()
    a = np.arange(4, dtype=np.float32)
    op = make(with_attrs)
    (out,) = call(op, a, attrs=CallAttrs(("scale", "repeat"), (1.5, 2)))
    np.testing.assert_allclose(out, np.tile(a, 2) * 1.5 + 0.5)
    before = len(KERNEL_CACHE)
    (out,) = call(op, a, attrs=CallAttrs(("scale", "repeat"), (3.0, 2)))   # new float: no recompile
    np.testing.assert_allclose(out, np.tile(a, 2) * 3.0 + 0.5)
    assert len(KERNEL_CACHE) == before
    (out,) = call(op, a, attrs=CallAttrs(("scale", "repeat", "offset"), (2.0, 1, 9.0)))
    np.testing.assert_allclose(out, a * 2.0)


def test_static_if_on_dtype():
    (out16,) = call(make(static_dtype_branch), np.zeros(2, np.float16))
    (out32,) = call(make(static_dtype_branch), np.zeros(2, np.float32))
    np.testing.assert_array_equal(out16, [16.0, 16.0])
    np.testing.assert_array_equal(out32, [32.0, 32.0])


def test_cache_returns_the_same_kernel():
    from npusim.hybrid.source import load_source
    KERNEL_CACHE = _kernel_cache()
    source = load_source(add)
    first = KERNEL_CACHE.get_compiled(source, [(2, 3), (2, 3)], ["float32", "float32"])
    second = KERNEL_CACHE.get_compiled(source, [(2, 3), (2, 3)], ["float32", "float32"])
    assert first is second
    other = KERNEL_CACHE.get_compiled(source, [(3, 3), (3, 3)], ["float32", "float32"])
    assert other is not first
    a = np.ones((2, 3), np.float32)
    make(add, "akg").launch([a, a], CallAttrs(), [(2, 3)], ["float32"])
    assert KERNEL_CACHE.get_compiled(source, [(2, 3), (2, 3)], ["float32", "float32"]) is first


def test_returned_input_is_a_copy_and_caller_array_untouched():
    a, b = A.copy(), B.copy()
    out_a, d = call(make(inplace_two_outputs, "akg"), a, b)
    np.testing.assert_array_equal(a, A)
    np.testing.assert_allclose(out_a, (A + B) * B, rtol=1e-6)
    np.testing.assert_allclose(d, A + B, rtol=1e-6)
    assert not np.shares_memory(out_a, a)


def test_non_contiguous_and_misaligned_inputs():
    a = np.asfortranarray(A)
    buffer = np.zeros(13, np.float32)
    misaligned = buffer[1:].reshape(3, 4)
    misaligned[:] = B
    assert misaligned.ctypes.data % 8 != 0
    (out,) = call(make(add, "akg"), a, misaligned)
    np.testing.assert_allclose(out, A + B)


def test_out_shape_mismatch_names_the_op():
    op = make(add, "akg")
    with pytest.raises(OpValueError, match="Custom op 'add'.*do not match"):
        op.launch([A, B], CallAttrs(), [(4, 3)], ["float32"])
    with pytest.raises(OpValueError, match="do not match"):
        op.launch([A, B], CallAttrs(), [(3, 4)], ["float16"])


def test_wrong_parameter_count_and_unsupported_dtype():
    with pytest.raises(OpValueError, match="takes 2 parameter"):
        call(make(add, "akg"), A, B, A)
    with pytest.raises(OpTypeError, match="complex64"):
        call(make(add, "akg"), A.astype(np.complex64), B.astype(np.complex64))


def test_akg_kind_sniffing():
    assert akg_kind("def f(a):\n    ib = tvm.ir_builder.create()") == "ir_builder"
    assert akg_kind("def f(a):\n    return tvm.compute(a.shape, lambda *i: a(*i))") == "compute"
    assert akg_kind("def f(a):\n    c = output_tensor(a.shape, a.dtype)") == "hybrid"
    (out,) = call(make(compute_in_prose, "akg"), np.arange(3, dtype=np.float32))
    np.testing.assert_array_equal(out, [0.0, -1.0, -2.0])


def ir_builder_kernel(inputs, attrs):
    ib = tvm.ir_builder.create()
    return ib.get()


def compute_kernel(a):
    return tvm.compute(a.shape, lambda *i: a(*i))


def test_akg_compute_is_unsupported_and_ir_builder_must_return_an_extern():
    # ir_builder kernels run (issue 11, tests/hybrid/test_hybrid_ir_builder.py); one returning a bare statement
    # instead of a tvm.extern output is a build error naming it
    op = make(ir_builder_kernel, "akg")
    with pytest.raises(KernelBuildError, match="ir_builder_kernel.*tvm.extern"):
        call(op, A)
    with pytest.raises(UnsupportedError, match="compute"):
        make(compute_kernel, "akg")
