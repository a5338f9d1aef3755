"""auto_schedule on reductions: every axis, keepdims or not, dtypes, and sizes that need accumulation."""
import numpy as np
import pytest

from tbe_sched_support import ph, reduce, run, ub_bytes

RNG = np.random.default_rng(11)
NP = {"sum": np.sum, "max": np.max, "min": np.min, "prod": np.prod}


def _data(op, shape, dtype):
    if np.dtype(dtype).kind == "i":
        return RNG.integers(-5, 6, shape).astype(dtype)
    if op == "prod":
        return (1 + RNG.standard_normal(shape) * 0.01).astype(dtype)
    return RNG.standard_normal(shape).astype(dtype)


def _check(op, shape, axes, keepdims, dtype="float16"):
    x = ph(shape, dtype, "x")
    xa = _data(op, shape, dtype)
    result = run(reduce(op, x, axes, keepdims), [x], [xa])
    expected = NP[op](xa.astype(np.float64), axis=tuple(axes), keepdims=keepdims)
    expected = expected.reshape(1) if expected.ndim == 0 else expected
    out = result.outputs[0]
    assert out.shape == expected.shape
    count = int(np.prod([shape[a] for a in axes]))
    if op == "sum" and dtype == "float16":
        tol = 2e-3 * np.sqrt(count) + 1e-2
    elif op == "sum" and dtype == "float32":
        tol = 1e-5 * np.sqrt(count) + 1e-5
    else:
        tol = 1e-5 if np.dtype(dtype).kind == "f" else 0
    np.testing.assert_allclose(out.astype(np.float64), expected, rtol=tol, atol=tol)
    return result


@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("op", ["sum", "max", "min"])
@pytest.mark.parametrize("shape,axes,pattern", [
    ((100, 37), [1], "reduce_last"), ((100, 300), [1], "reduce_last"), ((7, 1000), [1], "reduce_last"),
    ((8, 5, 33), [2], "reduce_last"), ((100, 37), [0], "reduce_nlast"), ((300, 64), [0], "reduce_nlast"),
    ((4, 30, 20), [1], "reduce_nlast"), ((1000,), [0], "reduce_all"), ((6, 40), [0, 1], "reduce_all"),
])
def test_reduce_each_axis(op, shape, axes, pattern, keepdims):
    result = _check(op, shape, axes, keepdims)
    assert result.sched.classification == pattern


@pytest.mark.parametrize("op,shape,axes,dtype", [
    ("sum", (50, 2000), [1], "float32"), ("max", (50, 70), [1], "float32"), ("min", (9, 300), [0], "float32"),
    ("prod", (20, 50), [1], "float32"), ("prod", (20, 50), [0], "float32"),
    ("sum", (20, 50), [1], "int32"), ("max", (20, 50), [0], "int32"),
])
def test_reduce_dtypes_and_ops_without_vc_instructions(op, shape, axes, dtype):
    _check(op, shape, axes, False, dtype)


@pytest.mark.parametrize("op,shape,axes,dtype", [
    ("sum", (16, 300000), [1], "float32"),     # rows longer than UB: accumulate column chunks
    ("sum", (20000, 40), [0], "float32"),      # a reduce axis taller than UB: accumulate row tiles
    ("max", (5000, 600), [0], "float16"),
    ("sum", (3000000,), [0], "float32"),       # everything to one value
])
def test_reduce_beyond_ub_accumulates(op, shape, axes, dtype):
    result = _check(op, shape, axes, False, dtype)
    assert result.sched.plan.accumulate
    assert result.ub_high_water <= ub_bytes()


def test_large_last_axis_reduce_splits_rows_over_cores():
    result = _check("sum", (4096, 512), [1], False, "float32")
    assert result.kernel.block_dim > 1
    assert result.ub_high_water <= ub_bytes()


def test_fp16_vcadd_sums_pairwise_like_the_hardware():
    x = ph((1, 128), "float16", "x")
    xa = np.full((1, 128), 0.1, np.float16)
    out = run(reduce("sum", x, [1]), [x], [xa]).outputs[0]
    level = xa[0]
    while level.size > 1:
        level = (level[0::2] + level[1::2]).astype(np.float16)
    assert out[0] == level[0]
