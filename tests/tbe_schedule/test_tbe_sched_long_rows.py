"""auto_schedule on norms whose reduced row does not fit UB: the multi-pass plan streams the row once per
reduce level and once more for the outputs (te_compat.schedule.multipass), staying on the vector path."""
import warnings

import numpy as np
import pytest

from npusim.sim import Device
from te_compat.fallback import ScalarPipeWarning, lower_scalar
from tbe_sched_support import bcast, binary, ph, reduce, run, ub_bytes, unary, vs

RNG = np.random.default_rng(23)
NO_FALLBACK = pytest.mark.filterwarnings("error::te_compat.fallback.ScalarPipeWarning")


def _shape(x) -> tuple:
    return tuple(int(d) for d in x.shape)


def _softmax(x, axis=-1):
    biggest = reduce("max", x, [axis], keepdims=True)
    e = unary("exp", binary("sub", x, bcast(biggest, _shape(x))))
    return binary("div", e, bcast(reduce("sum", e, [axis], keepdims=True), _shape(x)))


def _np_softmax(a, axis=-1):
    a = a.astype(np.float64)
    e = np.exp(a - a.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def _centre_all(x):
    axes = list(range(len(x.shape)))
    mean = vs("mul", reduce("sum", x, axes, keepdims=True), 1.0 / int(np.prod(_shape(x))))
    return binary("sub", x, bcast(mean, _shape(x)))


def _layernorm(x, eps=1e-5):
    n = _shape(x)[-1]
    mean = vs("mul", reduce("sum", x, [-1], True), 1.0 / n)
    centred = binary("sub", x, bcast(mean, _shape(x)))
    var = vs("mul", reduce("sum", binary("mul", centred, centred), [-1], True), 1.0 / n)
    return binary("mul", centred, bcast(unary("rsqrt", vs("add", var, eps)), _shape(x))), mean


def _multipass(result, passes: int):
    plan = result.sched.plan
    assert result.sched.classification == "norm"
    assert plan.multipass is not None and len(plan.multipass.passes) == passes
    assert result.ub_high_water <= ub_bytes()
    assert {"ub_tile0", "ub_tile1"} <= result.buffers_used()      # chunks alternate ping / pong


@NO_FALLBACK
@pytest.mark.parametrize("shape,dtype,passes", [
    ((8, 30522), "float32", 3), ((3, 100003), "float32", 3), ((3, 100003), "float16", 3),
    ((8, 30522), "float16", None),                 # 61 KB rows fit UB: the single-pass norm plan
])
def test_softmax_over_rows_longer_than_ub(shape, dtype, passes):
    x = ph(shape, dtype, "x")
    xa = RNG.standard_normal(shape).astype(dtype)
    result = run(_softmax(x), [x], [xa])
    if passes:
        _multipass(result, passes)                 # max; sum of exp(x - max); exp(x - max) / sum
    else:
        assert result.sched.plan.multipass is None
    expected = _np_softmax(xa)
    tol = (5e-3, 2e-7) if dtype == "float16" else (1e-5, 1e-9)
    np.testing.assert_allclose(result.outputs[0].astype(np.float64), expected, rtol=tol[0], atol=tol[1])
    np.testing.assert_allclose(result.outputs[0].astype(np.float64).sum(-1), 1.0, rtol=5e-3 if dtype == "float16"
                               else 1e-4)


@NO_FALLBACK
@pytest.mark.parametrize("shape", [(512, 512), (300001,)])
def test_reduce_all_then_broadcast_back(shape):
    x = ph(shape, "float32", "x")
    xa = (RNG.standard_normal(shape) + 3.0).astype(np.float32)
    result = run(_centre_all(x), [x], [xa])
    _multipass(result, 2)
    assert result.kernel.block_dim == 1            # one row: the whole tensor is one accumulation group
    a = xa.astype(np.float64)
    np.testing.assert_allclose(result.outputs[0], a - a.mean(), rtol=1e-6, atol=1e-5)


@NO_FALLBACK
def test_layernorm_mean_and_variance_over_long_rows():
    shape = (6, 40000)
    x = ph(shape, "float32", "x")
    xa = (RNG.standard_normal(shape) * 2 + 1).astype(np.float32)
    out, mean = _layernorm(x)
    result = run([out, mean], [x], [xa])
    _multipass(result, 3)                          # sum x; sum (x - mean)^2; the normalised output
    a = xa.astype(np.float64)
    m = a.mean(-1, keepdims=True)
    v = ((a - m) ** 2).mean(-1, keepdims=True)
    np.testing.assert_allclose(result.outputs[0], (a - m) / np.sqrt(v + 1e-5), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(result.outputs[1], m, rtol=1e-5, atol=1e-5)


@NO_FALLBACK
def test_layernorm_with_gamma_beta_and_a_per_row_input():
    shape = (6, 40000)
    x, gamma, beta, shift = ph(shape, "float32", "x"), ph(shape[1:], "float32", "g"), ph(shape[1:], "float32", "b"), \
        ph((shape[0], 1), "float32", "s")
    xa = RNG.standard_normal(shape).astype(np.float32)
    ga, ba = (RNG.standard_normal(shape[1:]).astype(np.float32) for _ in range(2))
    sa = RNG.standard_normal((shape[0], 1)).astype(np.float32)
    normed, _ = _layernorm(x)
    out = binary("add", binary("mul", normed, bcast(gamma, shape)), bcast(beta, shape))
    offset = binary("add", reduce("max", x, [-1], True), shift)         # a per-row value from a per-row input
    moved = binary("sub", x, bcast(offset, shape))
    result = run([out, moved], [x, gamma, beta, shift], [xa, ga, ba, sa])
    _multipass(result, 3)
    a = xa.astype(np.float64)
    m = a.mean(-1, keepdims=True)
    v = ((a - m) ** 2).mean(-1, keepdims=True)
    np.testing.assert_allclose(result.outputs[0], (a - m) / np.sqrt(v + 1e-5) * ga + ba, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(result.outputs[1], a - (a.max(-1, keepdims=True) + sa), rtol=1e-6, atol=1e-6)


@NO_FALLBACK
def test_softmax_over_a_long_first_axis():
    shape = (70000, 24)                            # the reduce axis is B: chunks of rows, all 24 columns
    x = ph(shape, "float32", "x")
    xa = RNG.standard_normal(shape).astype(np.float32)
    result = run(_softmax(x, 0), [x], [xa])
    _multipass(result, 3)
    np.testing.assert_allclose(result.outputs[0], _np_softmax(xa, 0), rtol=1e-5, atol=1e-10)


@NO_FALLBACK
def test_rows_that_fit_keep_the_single_pass_plan():
    shape = (16, 4000)
    x = ph(shape, "float32", "x")
    xa = RNG.standard_normal(shape).astype(np.float32)
    result = run(_softmax(x), [x], [xa])
    assert result.sched.plan.multipass is None and not result.sched.plan.accumulate
    np.testing.assert_allclose(result.outputs[0], _np_softmax(xa), rtol=1e-5, atol=1e-9)


def test_far_fewer_cycles_than_the_scalar_fallback():
    shape = (2, 30522)
    x = ph(shape, "float32", "x")
    xa = RNG.standard_normal(shape).astype(np.float32)
    res = _softmax(x)
    vector = run(res, [x], [xa])
    _multipass(vector, 3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ScalarPipeWarning)
        kernel = lower_scalar([res], [x, res], "softmax_scalar", "test: the fallback's cost")
    dev = Device()
    out = dev.malloc(xa.nbytes)
    record = dev.run(kernel, [dev.to_device(xa), out])
    np.testing.assert_allclose(dev.from_device(out, shape, "float32"), _np_softmax(xa), rtol=1e-5, atol=1e-9)
    assert vector.record.cost.total_cycles * 20 < record.cost.total_cycles
