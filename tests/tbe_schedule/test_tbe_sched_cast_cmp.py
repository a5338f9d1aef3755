"""auto_schedule on casts, roundings, compares (bool outputs) and selects."""
import numpy as np
import pytest

from tbe_sched_support import cast, cmp, ph, rounding, run, sel

RNG = np.random.default_rng(99)
N = 1000


def _floats(dtype, scale=50.0):
    return (RNG.standard_normal(N) * scale).astype(dtype)


@pytest.mark.parametrize("src,dst", [("float32", "float16"), ("float16", "float32"), ("int32", "float32"),
                                     ("int32", "float16"), ("uint8", "float16"), ("uint8", "float32")])
def test_casts(src, dst):
    a = ph((N,), src, "a")
    x = RNG.integers(0 if src == "uint8" else -3000, 250 if src == "uint8" else 3000, N).astype(src) \
        if np.dtype(src).kind in "iu" else _floats(src)
    expected = x.astype(np.float32).astype(dst) if src == "int32" else x.astype(dst)
    assert np.array_equal(run(cast(a, dst), [a], [x]).outputs[0], expected)


@pytest.mark.parametrize("dtype", ["float16", "float32"])
@pytest.mark.parametrize("kind,func", [("floor", np.floor), ("ceil", np.ceil), ("round", np.rint),
                                       ("trunc", np.trunc)])
def test_roundings_to_int32(dtype, kind, func):
    a = ph((N,), dtype, "a")
    x = _floats(dtype)
    x[:4] = np.array([2.5, -2.5, 0.5, -1.5], dtype)
    assert np.array_equal(run(rounding(kind, a), [a], [x]).outputs[0], func(x.astype(np.float64)).astype(np.int32))


def test_float_to_int_cast_without_mode_truncates():
    a = ph((N,), "float32", "a")
    x = _floats("float32")
    assert np.array_equal(run(cast(a, "int32"), [a], [x]).outputs[0], np.trunc(x).astype(np.int32))


@pytest.mark.parametrize("dtype", ["float16", "float32"])
@pytest.mark.parametrize("op,func", [("lt", np.less), ("gt", np.greater), ("le", np.less_equal),
                                     ("ge", np.greater_equal), ("eq", np.equal), ("ne", np.not_equal)])
def test_compare_writes_bool_bytes(dtype, op, func):
    p, q = ph((N,), dtype, "p"), ph((N,), dtype, "q")
    x, y = _floats(dtype), _floats(dtype)
    y[::5] = x[::5]
    result = run(cmp(op, p, q), [p, q], [x, y])
    assert result.outputs[0].dtype == np.bool_
    assert np.array_equal(result.outputs[0], func(x, y))


@pytest.mark.parametrize("dtype", ["float16", "float32"])
def test_select_through_compare(dtype):
    p, q = ph((N,), dtype, "p"), ph((N,), dtype, "q")
    x, y = _floats(dtype), _floats(dtype)
    assert np.array_equal(run(sel(cmp("gt", p, q), p, q), [p, q], [x, y]).outputs[0], np.maximum(x, y))
    assert np.array_equal(run(sel(cmp("gt", p, q), p, 0.0), [p, q], [x, y]).outputs[0], np.where(x > y, x, 0))


def test_compare_and_select_as_two_outputs():
    p, q = ph((N,), "float16", "p"), ph((N,), "float16", "q")
    x, y = _floats("float16"), _floats("float16")
    mask = cmp("lt", p, q)
    result = run([mask, sel(mask, q, p)], [p, q], [x, y])
    assert np.array_equal(result.outputs[0], x < y)
    assert np.array_equal(result.outputs[1], np.where(x < y, y, x))


def test_bool_input_selects_int32_and_casts():
    c, p, q = ph((N,), "bool", "c"), ph((N,), "int32", "p"), ph((N,), "int32", "q")
    cond = RNG.random(N) > 0.5
    x, y = RNG.integers(-99, 99, N).astype(np.int32), RNG.integers(-99, 99, N).astype(np.int32)
    assert np.array_equal(run(sel(c, p, q), [c, p, q], [cond, x, y]).outputs[0], np.where(cond, x, y))
    assert np.array_equal(run(cast(c, "float16"), [c], [cond]).outputs[0], cond.astype(np.float16))


def test_compare_cast_to_float():
    p, q = ph((N,), "float32", "p"), ph((N,), "float32", "q")
    x, y = _floats("float32"), _floats("float32")
    assert np.array_equal(run(cast(cmp("le", p, q), "float32"), [p, q], [x, y]).outputs[0],
                          (x <= y).astype(np.float32))
