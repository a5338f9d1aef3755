"""Reduces over separated axes (R1, K, R2) — e.g. [0, 2] of a 3-d tensor, BatchNorm's [0, 2, 3] of NCHW — map to
vector instructions: one A row per tile, the kernel accumulating across A and C tiles, blocks over K."""
import numpy as np
import pytest

from tbe_sched_support import cast, ph, reduce, run, ub_bytes, vs


@pytest.mark.parametrize("op", ["sum", "max", "min"])
@pytest.mark.parametrize("keepdims", [False, True])
def test_separated_axes_accumulate_over_a_and_c(op, keepdims):
    shape = (6, 70, 333)
    x = ph(shape, "float32")
    a = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    result = run(reduce(op, x, [0, 2], keepdims), [x], [a])
    plan = result.sched.plan
    assert result.sched.classification == "reduce_last"
    assert plan.accumulate and plan.tile.ta == 1 and plan.split.axis == 1
    assert result.kernel.block_dim > 1 and result.sched.tiles_per_block == 6
    func = {"sum": np.sum, "max": np.max, "min": np.min}[op]
    want = func(a.astype(np.float64), axis=(0, 2), keepdims=keepdims)
    np.testing.assert_allclose(result.outputs[0].astype(np.float64), want, rtol=1e-5, atol=1e-4)


def test_batchnorm_reduce_beyond_ub_with_a_post_op():
    shape = (4, 32, 9, 1000)                     # NCHW, reduce N, H, W: (R1=4, K=32, R2=9000)
    x = ph(shape, "float16")
    a = np.random.default_rng(1).standard_normal(shape).astype(np.float16)
    mean = vs("mul", reduce("sum", cast(x, "float32"), [0, 2, 3], True), 1.0 / (4 * 9000))
    result = run(mean, [x], [a])
    assert result.sched.plan.accumulate and result.sched.tiles_per_block > 4
    assert 0 < result.ub_high_water <= ub_bytes()
    want = a.astype(np.float64).mean(axis=(0, 2, 3), keepdims=True)
    np.testing.assert_allclose(result.outputs[0].astype(np.float64), want, rtol=1e-4, atol=1e-5)


def test_four_independent_axes_still_fall_back():
    x = ph((3, 4, 5, 6), "float32")
    a = np.ones((3, 4, 5, 6), np.float32)
    with pytest.warns(UserWarning, match="scalar pipe"):
        result = run(reduce("sum", x, [1, 3]), [x], [a])
    assert result.sched.classification == "fallback"
    np.testing.assert_array_equal(result.outputs[0], np.full((3, 5), 24.0, np.float32))
