"""Sums whose kept part is small split the reduce axis over the blocks, which meet through atomic adds in GM."""
import numpy as np
import pytest

from npusim.sim import Device, set_chip
from tbe_sched_support import binary, cast, ph, reduce, run, vs
from te_compat.schedule import atomic, auto_schedule

RNG = np.random.default_rng(23)


@pytest.fixture(autouse=True)
def _default_chip():
    set_chip(None)
    yield
    set_chip(None)


def _sum_tol(count: int, dtype: str) -> float:
    return (4e-3 * np.sqrt(count) + 2e-2) if dtype == "float16" else (1e-5 * np.sqrt(count) + 1e-5)


def _check(out, expected, count, dtype):
    assert out.shape == expected.shape
    tol = _sum_tol(count, dtype)
    np.testing.assert_allclose(out.astype(np.float64), expected, rtol=tol, atol=tol)


def _single_core(monkeypatch):
    """Lowerings inside this context use the regular plan (no atomic split)."""
    monkeypatch.setattr(atomic, "eligible", lambda *args: None)


@pytest.mark.parametrize("shape,axes,keepdims", [
    ((3_000_001,), [0], False),            # 12 MB, a tail block and a tail tile
    ((1500, 2001), [0, 1], False),          # reduce-all of a 2-d tensor
    ((1500, 2001), [0, 1], True),           # keepdims: output (1, 1)
    ((64, 33, 1001), [0, 1, 2], False),
])
def test_reduce_all_fp32_splits_over_blocks_with_atomic_add(shape, axes, keepdims):
    x = ph(shape, "float32")
    xa = RNG.standard_normal(shape).astype(np.float32)
    result = run(reduce("sum", x, axes, keepdims), [x], [xa])
    assert result.sched.classification == "reduce_all"
    assert result.kernel.block_dim > 1 and result.sched.plan.atomic.mode == "direct"
    assert [p.atomic_clean for p in result.kernel.params] == [False, True]
    assert result.ub_high_water <= 256 * 1024
    expected = xa.astype(np.float64).sum(axis=tuple(axes), keepdims=keepdims)
    _check(result.outputs[0], expected.reshape(1) if expected.ndim == 0 else expected, xa.size, "float32")


@pytest.mark.parametrize("form", ["cast_sum_f32", "sum_d_f16", "plain_f16"])
def test_reduce_all_of_fp16_inputs_splits_over_blocks(form):
    shape = (2048, 1500)
    x = ph(shape, "float16")
    xa = RNG.standard_normal(shape).astype(np.float16)
    if form == "cast_sum_f32":      # the float32 sum of a float16 input: partials go straight into the output
        out, mode = reduce("sum", cast(x, "float32"), [0, 1]), "direct"
    elif form == "sum_d_f16":       # ReduceSumD on cloud: cast to float32, sum, cast back
        out, mode = cast(reduce("sum", cast(x, "float32"), [0, 1]), "float16"), "two_stage"
    else:                           # a float16 sum: Ascend910 has no float16 atomic add, float32 partials meet
        out, mode = reduce("sum", x, [0, 1]), "two_stage"
    result = run(out, [x], [xa])
    assert result.kernel.block_dim > 1 and result.sched.plan.atomic.mode == mode
    _check(result.outputs[0], xa.astype(np.float64).sum().reshape(1), xa.size, str(out.dtype))


@pytest.mark.parametrize("shape,axes,keepdims", [
    ((100_003, 5), [0], False),            # kept part of 5 floats: the block's padding lanes must add 0
    ((100_003, 5), [0], True),
    ((250_000, 4), [0], False),
    ((13, 70_001), [1], False),            # 13 rows too few for the cores: columns split instead
    ((2, 600_000), [1], False),            # rows 2.4 MB apart: a gap over data_move's 65535 blocks, row by row
])
def test_small_kept_part_of_a_large_reduce_splits_the_reduce_axis(shape, axes, keepdims):
    x = ph(shape, "float32")
    xa = RNG.standard_normal(shape).astype(np.float32)
    result = run(reduce("sum", x, axes, keepdims), [x], [xa])
    assert result.kernel.block_dim > 1 and result.sched.plan.split.axis == result.sched._lowered.reduce_axis
    _check(result.outputs[0], xa.astype(np.float64).sum(axis=tuple(axes), keepdims=keepdims),
           shape[axes[0]], "float32")


def test_post_reduce_work_runs_once_on_the_total():
    x = ph((100_003, 5), "float32")
    b = ph((5,), "float32")
    xa = RNG.standard_normal((100_003, 5)).astype(np.float32)
    ba = RNG.standard_normal(5).astype(np.float32)
    mean_bias = binary("add", vs("mul", reduce("sum", x, [0]), 1 / 100_003), b)
    result = run(mean_bias, [x, b], [xa, ba])
    assert result.kernel.block_dim > 1 and result.sched.plan.atomic.mode == "two_stage"
    kinds = [(p.kind, p.atomic_clean) for p in result.kernel.params]
    assert kinds == [("gm", False), ("gm", False), ("gm", False), ("workspace", True), ("workspace", True)]
    np.testing.assert_allclose(result.outputs[0], xa.astype(np.float64).mean(0) + ba, rtol=1e-5, atol=1e-6)


def _launch(kernel, arrays, out_shape, out_dtype, order):
    dev = Device()
    args = [dev.to_device(a) for a in arrays]
    out = dev.malloc(int(np.prod(out_shape)) * np.dtype(out_dtype).itemsize)
    dev.memset(out, 0xAB, int(np.prod(out_shape)) * np.dtype(out_dtype).itemsize)
    dev.run(kernel, args + [out], block_order=order)
    return dev.from_device(out, out_shape, out_dtype)


@pytest.mark.parametrize("post", [False, True])
def test_result_does_not_depend_on_block_order(post):
    x = ph((400_000,), "float32")
    res = vs("mul", reduce("sum", x, [0]), 0.5) if post else reduce("sum", x, [0])
    kernel = auto_schedule(res).lower([x, res], "order")
    blocks = kernel.block_dim
    assert blocks > 2
    exact = RNG.integers(-100, 100, 400_000).astype(np.float32)      # integer sums are exact in any order
    orders = [list(range(blocks)), list(reversed(range(blocks))), list(RNG.permutation(blocks))]
    outs = [_launch(kernel, [exact], (1,), "float32", order) for order in orders]
    for out in outs:
        assert out[0] == exact.sum() * (0.5 if post else 1)
    noisy = RNG.standard_normal(400_000).astype(np.float32)
    a, b = (_launch(kernel, [noisy], (1,), "float32", order) for order in orders[:2])
    np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-4)


def test_a_relaunch_starts_from_zero_again():
    x = ph((300_000,), "float32")
    res = reduce("sum", x, [0])
    kernel = auto_schedule(res).lower([x, res], "again")
    dev = Device()
    xa = np.ones(300_000, np.float32)
    px, out = dev.to_device(xa), dev.malloc(4)
    dev.run(kernel, [px, out])
    dev.run(kernel, [px, out])              # without the atomic clean the second launch would give 600000
    assert dev.from_device(out, (1,), "float32")[0] == 300_000


def test_atomic_split_is_far_cheaper_than_one_core(monkeypatch):
    x = ph((1024, 4096), "float32")
    xa = RNG.standard_normal((1024, 4096)).astype(np.float32)
    split = run(reduce("sum", x, [0, 1]), [x], [xa])
    _single_core(monkeypatch)
    one = run(reduce("sum", x, [0, 1]), [x], [xa])
    assert one.kernel.block_dim == 1 and split.kernel.block_dim == 32
    assert split.record.cost.total_cycles * 10 < one.record.cost.total_cycles
    bound = xa.nbytes / split.record.chip.hbm_bytes_per_cycle       # HBM bandwidth bound of reading x once
    assert split.record.cost.total_cycles < 2 * bound
    np.testing.assert_allclose(split.outputs[0], one.outputs[0], rtol=1e-5)


@pytest.mark.parametrize("op,dtype,chip", [("max", "float32", None), ("min", "float16", None),
                                           ("sum", "int32", None), ("sum", "float32", "Ascend310")])
def test_reduces_without_a_usable_atomic_keep_the_regular_plan(op, dtype, chip):
    set_chip(chip)
    x = ph((2000, 1000), dtype)
    xa = RNG.integers(-3, 4, (2000, 1000)).astype(dtype)
    result = run(reduce(op, x, [0, 1]), [x], [xa])
    assert result.sched.plan.atomic is None and result.kernel.block_dim == 1
    assert not any(p.atomic_clean for p in result.kernel.params)
    expected = {"max": np.max, "min": np.min, "sum": np.sum}[op](xa.astype(np.float64))
    np.testing.assert_allclose(result.outputs[0].astype(np.float64), [expected], rtol=1e-5)


def test_chips_with_more_atomic_dtypes_accumulate_them_directly():
    set_chip("Ascend910B1")
    x = ph((2000, 1000), "int32")
    xa = RNG.integers(-1000, 1000, (2000, 1000)).astype(np.int32)
    result = run(reduce("sum", x, [0, 1]), [x], [xa])
    assert result.kernel.block_dim > 1 and result.sched.plan.atomic.mode == "direct"
    assert result.outputs[0][0] == xa.astype(np.int64).sum()


def test_small_reduces_stay_on_one_block():
    x = ph((1000,), "float32")
    result = run(reduce("sum", x, [0]), [x], [RNG.standard_normal(1000).astype(np.float32)])
    assert result.kernel.block_dim == 1 and result.sched.plan.atomic is None
