"""@kernel / ms_kernel / ms_hybrid: recognisable, source-preserving, runnable directly on numpy."""
import inspect
import json
import sys
import warnings

import numpy as np
import pytest

from npusim.hybrid import is_kernel, kernel, ms_hybrid, ms_kernel


@kernel
def add_kernel(a, b):
    """adds two matrices"""
    c = output_tensor(a.shape, a.dtype)
    for i0 in range(a.shape[0]):
        for i1 in range(a.shape[1]):
            c[i0, i1] = a[i0, i1] + b[i0, i1]
    return c


@kernel(reg_info={"op_name": "Outer"}, compile_attrs={"test1": True, "test3": 12})
def outer_product(a, b):
    c = output_tensor((a.shape[0], b.shape[1]), a.dtype)
    with block_realize(c):
        for i0 in range(a.shape[0]):
            for i1 in range(b.shape[1]):
                c[i0, i1] = 0.0
                for i2 in range(a.shape[1]):
                    c[i0, i1] = c[i0, i1] + (a[i0, i2] * b[i2, i1])
    return c


@kernel
def grid_and_scalars(a, factor):
    c = output_tensor(a.shape, a.dtype)
    d = allocate((2,), "float32", "local")
    for arg in grid(a.shape):
        c[arg] = a[arg] * factor + d[0]
    return c, d


def plain(a):
    return a


def test_kernel_flag_name_doc_and_source():
    assert is_kernel(add_kernel) and add_kernel.ms_kernel_flag is True
    assert not is_kernel(plain)
    assert add_kernel.__name__ == "add_kernel"
    assert add_kernel.__doc__ == "adds two matrices"
    source = inspect.getsource(add_kernel)
    assert "def add_kernel(a, b):" in source and "output_tensor" in source
    assert json.loads(add_kernel.compile_attrs) == {}


def test_kernel_with_options_keeps_reg_info_and_compile_attrs():
    assert is_kernel(outer_product)
    assert outer_product.reg_info == {"op_name": "Outer"}
    assert json.loads(outer_product.compile_attrs) == {"test1": True, "test3": 12}


def test_direct_call_runs_on_numpy():
    x = np.array([[0.0, 0.0], [1.0, 1.0]], np.float32)
    y = np.array([[2.0, 2.0], [3.0, 3.0]], np.float32)
    out = add_kernel(x, y)
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out, [[2.0, 2.0], [4.0, 4.0]])
    a, b = np.random.rand(3, 4).astype(np.float32), np.random.rand(4, 5).astype(np.float32)
    np.testing.assert_allclose(outer_product(a, b), a @ b, rtol=1e-5)


def test_direct_call_grid_scalar_argument_and_tuple_return():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    c, d = grid_and_scalars(a, 2.0)
    np.testing.assert_array_equal(c, a * 2.0)
    assert d.dtype == np.float32 and not d.any()


def test_direct_call_does_not_pollute_module_globals():
    add_kernel(np.ones((1, 1)), np.ones((1, 1)))
    module = sys.modules[__name__]
    for name in ("output_tensor", "allocate", "grid", "sqrt", "float16"):
        assert not hasattr(module, name)


def test_deprecated_aliases_warn_and_work():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")

        def double(a):
            b = output_tensor(a.shape, a.dtype)
            for i in range(a.shape[0]):
                b[i] = a[i] * 2
            return b

        for alias in (ms_kernel, ms_hybrid):
            wrapped = alias(double)
            assert is_kernel(wrapped)
            np.testing.assert_array_equal(wrapped(np.arange(3.0)), [0.0, 2.0, 4.0])
    assert sum(issubclass(w.category, DeprecationWarning) for w in caught) == 2


def test_bad_decorator_options():
    with pytest.raises(TypeError, match="compile_attrs"):
        kernel(compile_attrs=[1])
    with pytest.raises(TypeError, match="key of 'compile_attrs'"):
        kernel(compile_attrs={1: 2})
    with pytest.raises(TypeError, match="reg_info"):
        kernel(reg_info=3)
