"""auto_schedule on mixtures (softmax, reduce_mean, layernorm), multiple outputs, other chips, the fallback and
the checks on tensor_list."""
import numpy as np
import pytest
import tvm
from tvm import te

from npusim.errors.tbe import TbeScheduleError
from npusim.sim import set_chip
from te_compat.schedule import auto_schedule
from tbe_sched_support import bcast, binary, cmp, ph, reduce, run, ub_bytes, unary, vs

RNG = np.random.default_rng(5)


def _softmax(x, axis):
    shape = tuple(int(d) for d in x.shape)
    biggest = reduce("max", x, [axis], keepdims=True)
    e = unary("exp", binary("sub", x, bcast(biggest, shape)))
    total = reduce("sum", e, [axis], keepdims=True)
    return binary("div", e, bcast(total, shape))


def _np_softmax(a, axis):
    a = a.astype(np.float64)
    e = np.exp(a - a.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


@pytest.mark.parametrize("dtype", ["float16", "float32"])
@pytest.mark.parametrize("shape,axis", [((100, 37), 1), ((64, 1000), 1), ((3, 7), 1), ((300, 20), 0),
                                        ((4, 50, 24), 1), ((8, 128), 1)])
def test_softmax(shape, axis, dtype):
    x = ph(shape, dtype, "x")
    xa = RNG.standard_normal(shape).astype(dtype)
    result = run(_softmax(x, axis), [x], [xa])
    assert result.sched.classification == "norm"
    tol = (5e-3, 1e-3) if dtype == "float16" else (1e-5, 1e-6)
    np.testing.assert_allclose(result.outputs[0].astype(np.float64), _np_softmax(xa, axis), rtol=tol[0], atol=tol[1])


def test_large_softmax_uses_cores_and_fits_ub():
    shape = (1000, 4096)
    x = ph(shape, "float16", "x")
    xa = RNG.standard_normal(shape).astype(np.float16)
    result = run(_softmax(x, 1), [x], [xa])
    np.testing.assert_allclose(result.outputs[0].astype(np.float64), _np_softmax(xa, 1), rtol=5e-3, atol=1e-3)
    assert result.kernel.block_dim > 1
    assert result.ub_high_water <= ub_bytes()
    assert {"ub_tile0", "ub_tile1"} <= result.buffers_used()       # row tiles alternate ping / pong


@pytest.mark.parametrize("shape,axes", [((100, 37), [1]), ((100, 37), [0]), ((8, 300000), [1]),
                                        ((20000, 48), [0]), ((2, 3, 4, 5), [2, 3]), ((2, 3, 4, 5), [1])])
def test_reduce_mean_with_keepdims(shape, axes):
    x = ph(shape, "float32", "x")
    xa = RNG.standard_normal(shape).astype(np.float32)
    count = int(np.prod([shape[a] for a in axes]))
    result = run(vs("mul", reduce("sum", x, axes, True), 1.0 / count), [x], [xa])
    np.testing.assert_allclose(result.outputs[0], xa.astype(np.float64).mean(axis=tuple(axes), keepdims=True),
                               rtol=2e-4, atol=2e-5)


def test_layernorm_with_two_outputs():
    shape = (123, 77)
    x = ph(shape, "float32", "x")
    xa = RNG.standard_normal(shape).astype(np.float32)
    mean = vs("mul", reduce("sum", x, [-1], True), 1.0 / shape[-1])
    centred = binary("sub", x, bcast(mean, shape))
    var = vs("mul", reduce("sum", binary("mul", centred, centred), [-1], True), 1.0 / shape[-1])
    out = binary("mul", centred, bcast(unary("rsqrt", vs("add", var, 1e-5)), shape))
    result = run([out, mean], [x], [xa])
    a = xa.astype(np.float64)
    m = a.mean(-1, keepdims=True)
    v = ((a - m) ** 2).mean(-1, keepdims=True)
    np.testing.assert_allclose(result.outputs[0], (a - m) / np.sqrt(v + 1e-5), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(result.outputs[1], m, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("shape", [(50, 30), (4, 200000)])
def test_elementwise_output_and_its_reduction(shape):
    x = ph(shape, "float32", "x")
    xa = (RNG.standard_normal(shape) * 0.5).astype(np.float32)
    e = unary("exp", x)
    result = run([e, reduce("sum", e, [-1])], [x], [xa])
    expected = np.exp(xa.astype(np.float64))
    np.testing.assert_allclose(result.outputs[0], expected, rtol=1e-6)
    np.testing.assert_allclose(result.outputs[1], expected.sum(-1), rtol=1e-4)


def test_other_chip_uses_its_tables():
    set_chip("Ascend310")
    try:
        shape = (64, 300)
        x = ph(shape, "float16", "x")
        xa = RNG.standard_normal(shape).astype(np.float16)
        result = run(_softmax(x, 1), [x], [xa])
        assert result.sched.classification == "norm"      # vdiv is missing on 310: divides by vrec + vmul
        assert result.kernel.block_dim <= 2
        np.testing.assert_allclose(result.outputs[0].astype(np.float64), _np_softmax(xa, 1), rtol=5e-3, atol=1e-3)
    finally:
        set_chip(None)


def test_smaller_ub_of_910b_is_respected():
    set_chip("Ascend910B1")
    try:
        shape = (512, 3000)
        x = ph(shape, "float32", "x")
        xa = RNG.standard_normal(shape).astype(np.float32)
        result = run(_softmax(x, 1), [x], [xa])
        np.testing.assert_allclose(result.outputs[0], _np_softmax(xa, 1), rtol=1e-5, atol=1e-7)
        assert 24 < result.kernel.block_dim <= 48        # vector-only: the 48 vector cores (24 AI cores)
        assert result.ub_high_water <= ub_bytes() == 196608
    finally:
        set_chip(None)


def _fallback_available():
    try:
        import te_compat.fallback  # noqa: F401
        return True
    except ImportError:
        return False


@pytest.mark.skipif(not _fallback_available(), reason="te_compat.fallback is not written yet")
def test_untagged_compute_goes_to_the_scalar_fallback():
    a = ph((100,), "float16", "a")
    u = te.compute((100,), lambda i: a[i] * a[i] + tvm.tirx.const(1, "float16"), name="u")
    sch = auto_schedule(u)
    assert sch.classification == "fallback"
    assert "untagged" in sch.fallback_reason
    with pytest.warns(UserWarning):
        kernel = sch.lower([a, u], "untagged_square")
    assert [p.name for p in kernel.params][:2] == ["a", "u"]


@pytest.mark.skipif(not _fallback_available(), reason="te_compat.fallback is not written yet")
def test_unsupported_dtype_on_chip_falls_back_when_lowering():
    set_chip("Ascend310")
    try:
        p, q = ph((64,), "float32", "p"), ph((64,), "float32", "q")
        sch = auto_schedule(cmp("lt", p, q))
        assert sch.classification == "elewise"
        with pytest.warns(UserWarning):
            sch.lower([p, q, sch.outputs[0]], "cmp_f32_310")
        assert sch.classification == "fallback" and "vcmpv" in sch.fallback_reason
    finally:
        set_chip(None)


def test_params_follow_tensor_list_order_and_missing_tensors_raise():
    a, b = ph((64,), "float16", "a"), ph((64,), "float16", "b")
    out = binary("add", a, b)
    kernel = auto_schedule(out).lower([b, a, out], "ordered")
    assert [(p.name, p.dtype, p.shape) for p in kernel.params] == [("b", "float16", (64,)),
                                                                     ("a", "float16", (64,)),
                                                                     ("vadd", "float16", (64,))]
    with pytest.raises(TbeScheduleError, match="input"):
        auto_schedule(out).lower([a, out], "missing_input")
    with pytest.raises(TbeScheduleError, match="output"):
        auto_schedule(out).lower([a, b], "missing_output")
