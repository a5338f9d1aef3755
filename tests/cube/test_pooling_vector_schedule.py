"""Issue 15: pooling2d's vector schedule (te_compat.pooling).  The kernel is vector instructions (per-tap vmax /
vadd over C0 blocks, vector_dup padding), not the scalar-pipe fallback; MAX is bit-identical to the scalar path
(and so to numpy); AVG follows the chip's order (float16 vadd per tap from 0 in row-major tap order, then a
multiply by float16(1 / taps inside the input)), bit for bit against a numpy model of that order and close to the
exact mean."""
import warnings

import numpy as np
import pytest

from npusim.sim import default_device, profile, set_chip

CHIPS = ("Ascend910", "Ascend910B1")


def _pool_graph(shape, window, stride, mode, padding, **kwargs):
    import npusim.compat  # noqa: F401  (serves te / tbe as an op file imports them)
    import te.lang.cce as tbe
    from te import tvm
    data = tvm.placeholder(shape, name="tensor_in", dtype="float16")
    return data, tbe.pooling2d(data, window, stride, mode, padding, **kwargs)


def _build(shape, window, stride, mode, padding, **kwargs):
    """(schedule, kernel, output shape) through auto_schedule, warnings as errors (no ScalarPipeWarning)."""
    from te_compat.schedule import auto_schedule
    data, res = _pool_graph(shape, window, stride, mode, padding, **kwargs)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sch = auto_schedule(res)
        kernel = sch.lower([data, res], f"pool_{mode.lower()}")
    return sch, kernel, tuple(int(d) for d in res.shape)


def _run(kernel, x, out_shape):
    device = default_device()
    out = device.malloc(int(np.prod(out_shape)) * 2)
    device.run(kernel, [device.to_device(x), out], block_dim=kernel.block_dim)
    return device.from_device(out, out_shape, "float16")


def _geometry(h, w, window, stride, padding):
    (kh, kw), (sh, sw) = window, stride
    if padding == "SAME":
        ho, wo = -(-h // sh), -(-w // sw)
        return ho, wo, max((ho - 1) * sh + kh - h, 0) // 2, max((wo - 1) * sw + kw - w, 0) // 2
    return -(-(h - kh + 1) // sh), -(-(w - kw + 1) // sw), 0, 0


def _taps(x, window, stride, padding, fill):
    """(list of float16 tap arrays [n, c1, ho, wo, c0] in row-major tap order, taps-inside count [ho, wo])."""
    _, _, h, w, _ = x.shape
    (kh, kw), (sh, sw) = window, stride
    ho, wo, top, left = _geometry(h, w, window, stride, padding)
    hp, wp = (ho - 1) * sh + kh, (wo - 1) * sw + kw
    padded = np.full((*x.shape[:2], hp + h, wp + w, x.shape[4]), fill, np.float16)
    padded[:, :, top:top + h, left:left + w] = x
    inside = np.zeros((hp + h, wp + w), np.int64)
    inside[top:top + h, left:left + w] = 1
    taps, count = [], np.zeros((ho, wo), np.int64)
    for i in range(kh):
        for j in range(kw):
            rows, cols = slice(i, i + (ho - 1) * sh + 1, sh), slice(j, j + (wo - 1) * sw + 1, sw)
            taps.append(padded[:, :, rows, cols])
            count += inside[rows, cols]
    return taps, count


def _max_reference(x, window, stride, padding):
    taps, _ = _taps(x, window, stride, padding, np.float16(-np.inf))
    return np.maximum(np.max(taps, axis=0), np.float16(-65504))


def _avg_chip_order(x, window, stride, padding):
    """The chip's AVG: float16 accumulator from 0, one rounded add per tap, times float16(1 / count)."""
    taps, count = _taps(x, window, stride, padding, np.float16(0))
    acc = np.zeros(taps[0].shape, np.float16)
    for tap in taps:
        acc = acc + tap
    factor = (1.0 / np.maximum(count, 1)).astype(np.float16)
    return acc * factor[:, :, None]


def _avg_exact(x, window, stride, padding):
    taps, count = _taps(x.astype(np.float32), window, stride, padding, np.float32(0))
    return np.sum([t.astype(np.float64) for t in taps], axis=0) / np.maximum(count, 1)[:, :, None]


def _opcodes(kernel) -> set:
    return {instr.opcode for _, instr in kernel.instructions()}


@pytest.mark.parametrize("mode, op", [("MAX", "vmax"), ("AVG", "vadd")])
def test_kernel_is_vector_taps_not_a_scalar_loop(mode, op):
    set_chip("Ascend910")
    sch, kernel, _ = _build((1, 2, 9, 11, 16), (3, 3), (2, 2), mode, "SAME")
    ops = _opcodes(kernel)
    assert sch.classification == "pooling2d" and sch.fallback_reason is None
    assert op in ops and "vector_dup" in ops and "data_move" in ops
    assert "tvm_call" not in ops
    x = np.random.default_rng(3).standard_normal((1, 2, 9, 11, 16)).astype(np.float16)
    with profile() as prof:
        _run(kernel, x, (1, 2, 5, 6, 16))
    row = prof.rows()[-1]
    assert row["busiest_pipe"] != "S"
    assert row["utilisation"].get("V", 0) > 0


@pytest.mark.parametrize("chip", CHIPS)
@pytest.mark.parametrize("padding", ["SAME", "VALID"])
@pytest.mark.parametrize("window, stride", [((3, 3), (1, 1)), ((3, 3), (2, 2)), ((2, 2), (1, 1)), ((2, 2), (2, 2))])
def test_pooling_against_numpy(chip, padding, window, stride):
    set_chip(chip)
    shape = (2, 3, 11, 13, 16)          # odd H and W
    x = np.random.default_rng(7).standard_normal(shape).astype(np.float16)
    _, kernel, out_shape = _build(shape, window, stride, "MAX", padding)
    np.testing.assert_array_equal(_run(kernel, x, out_shape), _max_reference(x, window, stride, padding))
    _, kernel, out_shape = _build(shape, window, stride, "AVG", padding)
    out = _run(kernel, x, out_shape)
    np.testing.assert_array_equal(out, _avg_chip_order(x, window, stride, padding))
    np.testing.assert_allclose(out.astype(np.float64), _avg_exact(x, window, stride, padding), rtol=4e-3, atol=4e-3)


@pytest.mark.parametrize("chip", CHIPS)
def test_max_is_bit_identical_to_the_scalar_path(chip):
    from te_compat.fallback import lower_scalar
    set_chip(chip)
    shape, window, stride = (1, 2, 10, 7, 16), (3, 3), (2, 1)
    x = np.random.default_rng(11).standard_normal(shape).astype(np.float16)
    x[0, 0, :4, :4] = -np.inf            # whole windows of -inf: both give float16's lowest there
    x[0, 1, 5, 3] = np.inf
    data, res = _pool_graph(shape, window, stride, "MAX", "SAME")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        scalar = lower_scalar([res], [data, res], "pool_scalar", "test", None)
    _, vector, out_shape = _build(shape, window, stride, "MAX", "SAME")
    np.testing.assert_array_equal(_run(vector, x, out_shape), _run(scalar, x, out_shape))


@pytest.mark.parametrize("shape, window, stride, mode", [
    ((2, 20, 7, 9, 16), (3, 3), (2, 2), "AVG"),     # 40 planes on 32 cores: two units per block, double buffered
    ((1, 33, 5, 6, 16), (2, 2), (1, 1), "MAX"),     # units in pairs plus one left over
    ((1, 1, 3, 300, 16), (3, 3), (1, 1), "MAX"),    # a row too wide for row strides: one instruction per row
    ((1, 1, 9, 6, 16), (7, 5), (1, 1), "AVG"),      # 35 taps: a kernel loop over window rows
])
def test_other_plans(shape, window, stride, mode):
    set_chip("Ascend910")
    x = np.random.default_rng(5).standard_normal(shape).astype(np.float16)
    sch, kernel, out_shape = _build(shape, window, stride, mode, "SAME")
    out = _run(kernel, x, out_shape)
    if mode == "MAX":
        np.testing.assert_array_equal(out, _max_reference(x, window, stride, "SAME"))
    else:
        np.testing.assert_array_equal(out, _avg_chip_order(x, window, stride, "SAME"))
    assert sch.plan.units >= sch.plan.block_dim


def test_global_max_pool_and_global_avg_pool():
    set_chip("Ascend910B1")
    shape = (1, 2, 12, 10, 16)
    x = np.random.default_rng(2).standard_normal(shape).astype(np.float16)
    sch, kernel, out_shape = _build(shape, (1, 1), (1, 1), "GMP", "VALID")
    assert sch.classification == "pooling2d" and "vmax" in _opcodes(kernel)
    np.testing.assert_array_equal(_run(kernel, x, out_shape)[:, :, 0, 0], x.max(axis=(2, 3)))
    from te_compat.schedule import auto_schedule
    data, res = _pool_graph(shape, (1, 1), (1, 1), "GAP", "VALID")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sch = auto_schedule(res)
        kernel = sch.lower([data, res], "gap")
    assert sch.classification == "fallback"    # the chip sums GAP in float32: npusim keeps the scalar path
    np.testing.assert_allclose(_run(kernel, x, out_shape)[:, :, 0, 0], x.astype(np.float32).mean(axis=(2, 3)),
                               rtol=2e-3, atol=2e-3)


def test_calculated_padding_with_ceil_mode():
    set_chip("Ascend910")
    shape = (1, 1, 8, 8, 16)
    x = np.random.default_rng(4).standard_normal(shape).astype(np.float16)
    sch, kernel, out_shape = _build(shape, (3, 3), (2, 2), "MAX", "CALCULATED", pad=(1, 1, 0, 1), ceil_mode=1)
    assert out_shape == (1, 1, 5, 4, 16)
    padded = np.full((1, 1, 11, 11, 16), -np.inf, np.float16)
    padded[:, :, 1:9, 0:8] = x
    want = np.max([padded[:, :, i:i + 9:2, j:j + 7:2] for i in range(3) for j in range(3)], axis=0)
    np.testing.assert_array_equal(_run(kernel, x, out_shape), np.maximum(want, np.float16(-65504)))


def test_a_row_too_wide_for_ub_falls_back_to_the_scalar_path():
    set_chip("Ascend910")
    from te_compat.fallback import ScalarPipeWarning
    from te_compat.schedule import auto_schedule
    shape = (1, 1, 4, 6000, 16)
    data, res = _pool_graph(shape, (3, 3), (1, 1), "MAX", "VALID")
    sch = auto_schedule(res)
    with pytest.warns(ScalarPipeWarning):
        kernel = sch.lower([data, res], "pool_wide")
    assert sch.classification == "fallback" and "does not fit UB" in sch.fallback_reason
    x = np.random.default_rng(9).standard_normal(shape).astype(np.float16)
    np.testing.assert_array_equal(_run(kernel, x, (1, 1, 2, 5998, 16)), _max_reference(x, (3, 3), (1, 1), "VALID"))
