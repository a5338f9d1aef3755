"""The compiled host loops (npusim/sim/isa/_native.pyx) give the same bytes as the numpy forms they stand in for."""
import numpy as np
import pytest

from npusim.sim.isa import batch_moves, dup_reduce

native = pytest.importorskip("npusim.sim.isa._native", reason="compiled host loops not built")

F32 = np.dtype(np.float32)


def _numpy_tree(values):
    return dup_reduce._tree_in_slices(values, F32)


@pytest.mark.parametrize("shape", [(1,), (7,), (3, 64), (2, 3, 33), (2, 2, 5, 64), (2, 2, 2, 2, 17), (4, 1),
                                   (3, 128), (5, 1023)])
def test_pair_tree_matches_the_numpy_levels_bit_for_bit(shape):
    rng = np.random.default_rng(sum(shape))
    values = (rng.standard_normal(shape) * rng.choice([1e-30, 1.0, 1e30], size=shape)).astype(np.float32)
    values.reshape(-1)[::5] = -0.0          # -0.0 + 0.0 pads are +0.0: the odd-count rule must match
    got = dup_reduce._compiled_tree(values, F32)
    assert got is not None
    np.testing.assert_array_equal(got.view(np.uint32), _numpy_tree(values).view(np.uint32))


def test_pair_tree_on_strided_leading_axes():
    """Blocks x instructions x repeats x lanes with gaps between rows, as the lockstep vcadd hands it over."""
    base = np.random.default_rng(0).standard_normal(4 * 5000).astype(np.float32)
    values = np.lib.stride_tricks.as_strided(base, (4, 3, 5, 64), (20000, 256, 1024, 4))
    got = dup_reduce._compiled_tree(values, F32)
    np.testing.assert_array_equal(got.view(np.uint32), _numpy_tree(values).view(np.uint32))


def test_pair_tree_declines_what_it_does_not_cover():
    assert dup_reduce._compiled_tree(np.ones((3, 64), np.float16), np.dtype(np.float16)) is None
    assert dup_reduce._compiled_tree(np.ones((3, 128), np.float32)[:, ::2], F32) is None     # strided lanes
    assert dup_reduce._compiled_tree(np.ones((2, 2000), np.float32), F32) is None           # over MAX_LANES


def test_non_finite_rows_take_the_numpy_levels(monkeypatch):
    """An overflowing row: the saturating chip's result comes from the level-by-level numpy tree."""
    values = np.full((2, 64), 3e38, dtype=np.float32)
    values[1] = 1.0
    saturate = lambda level: np.nan_to_num(level, posinf=np.finfo(np.float32).max)  # noqa: E731
    got = dup_reduce._tree_sum(values, F32, saturate)
    monkeypatch.setattr(dup_reduce, "_pair_tree_f32", None)
    want = dup_reduce._tree_sum(values, F32, saturate)
    np.testing.assert_array_equal(got, want)
    assert got[1] == 64.0 and np.isfinite(got[0])


@pytest.mark.parametrize("rows,nburst,burst", [(1, 1, 1), (3, 5, 32), (32, 40, 128), (2, 3, 7)])
def test_copy_bursts_matches_numpy(rows, nburst, burst):
    rng = np.random.default_rng(rows * nburst * burst)
    gm = rng.integers(0, 256, rows * nburst * burst * 3, dtype=np.uint8)
    ub = np.zeros((rows, nburst * burst * 2), np.uint8)
    src = np.lib.stride_tricks.as_strided(gm, (rows, nburst, burst), (burst, rows * burst * 2, 1))
    dst = np.lib.stride_tricks.as_strided(ub, (rows, nburst, burst), (ub.shape[1], burst * 2, 1))
    native.copy_bursts(dst, src)
    want = np.zeros_like(ub)
    np.lib.stride_tricks.as_strided(want, dst.shape, dst.strides)[...] = src
    np.testing.assert_array_equal(ub, want)


def test_copy_bursts_broadcasts_and_leaves_overlaps_to_numpy():
    grid = np.arange(64, dtype=np.uint8).reshape(1, 4, 16)
    dst = np.zeros((3, 4, 16), np.uint8)
    batch_moves.copy_bursts(dst, np.broadcast_to(grid, dst.shape))
    assert (dst == grid).all()
    buf = np.arange(96, dtype=np.uint8)
    dst = buf[16:80].reshape(1, 4, 16)
    src = buf[:64].reshape(1, 4, 16)
    want = src.copy()
    batch_moves.copy_bursts(dst, src)     # overlapping: numpy copies as if from a copy of src
    np.testing.assert_array_equal(dst, want)


def test_copy_bursts_rejects_mismatched_grids():
    with pytest.raises(ValueError, match="differ in shape"):
        native.copy_bursts(np.zeros((2, 2, 4), np.uint8), np.zeros((2, 2, 3), np.uint8))


@pytest.mark.parametrize("op,ufunc", [(0, np.add), (1, np.subtract), (2, np.multiply)])
def test_binary_f32_matches_numpy_and_reports_non_finite(op, ufunc):
    rng = np.random.default_rng(op)
    scale = rng.choice(np.array([1e-38, 1.0, 1e19, 3e38], np.float32), size=(4, 300))
    arena = rng.standard_normal((4, 300)).astype(np.float32) * scale
    a, b = arena[:, 0:100], arena[:, 100:200]
    with np.errstate(over="ignore", invalid="ignore"):
        want = ufunc(a, b)
    out = arena[:, 200:300]
    status = native.binary_f32(op, a, b, out)
    np.testing.assert_array_equal(out.view(np.uint32)[np.isfinite(want)],
                                  want.view(np.uint32)[np.isfinite(want)])
    assert status == int(not np.isfinite(want).all())
    np.testing.assert_array_equal(np.isfinite(out), np.isfinite(want))


def test_binary_f32_in_place_and_finite():
    arena = np.arange(2 * 64, dtype=np.float32).reshape(2, 64)
    want = arena[:, :32] + arena[:, 32:]
    assert native.binary_f32(0, arena[:, :32], arena[:, 32:], arena[:, :32]) == 0     # dst is src0: halving
    np.testing.assert_array_equal(arena[:, :32], want)


def test_binary_f32_refuses_partial_overlap_and_mismatches():
    arena = np.ones((2, 64), np.float32)
    before = arena.copy()
    assert native.binary_f32(0, arena[:, 0:32], arena[:, 8:40], arena[:, 4:36]) == -1     # shifted overlap
    assert native.binary_f32(0, arena[:, 0:32], arena[:, 0:31], arena[:, 32:63]) == -1    # shapes differ
    assert native.binary_f32(0, arena[:, 0:32:2], arena[:, 0:16], arena[:, 32:48]) == -1  # strided row
    assert native.binary_f32(7, arena[:, 0:16], arena[:, 16:32], arena[:, 32:48]) == -1   # unknown op
    np.testing.assert_array_equal(arena, before)


_HALF_UFUNCS = [np.add, np.subtract, np.multiply, np.divide, np.maximum, np.minimum]
_NOT_NAN = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)
_NOT_NAN = _NOT_NAN[(_NOT_NAN & 0x7FFF) <= 0x7C00]


@pytest.mark.parametrize("hardware", [True, False])
@pytest.mark.parametrize("op,ufunc", list(enumerate(_HALF_UFUNCS)))
def test_binary_f16_matches_numpy_bit_for_bit(op, ufunc, hardware):
    """Every float16 bit pattern but NaN as operands (rows of 37: the F16C lanes and the software tail), signed
    zeros against each other, overflow to inf: numpy's bits wherever no NaN arises, -1 where one does."""
    rng = np.random.default_rng(op)
    a = rng.choice(_NOT_NAN, (600, 37))
    b = rng.choice(_NOT_NAN, (600, 37))
    a[0], b[0], a[1], b[1] = 0x8000, 0x0000, 0x0000, 0x8000
    with np.errstate(all="ignore"):
        want = ufunc(a.view(np.float16), b.view(np.float16))
    for r in range(a.shape[0]):
        got = np.zeros((1, 37), np.uint16)
        status = native.binary_f16(op, a[r:r + 1], b[r:r + 1], got, hardware)
        if np.isnan(want[r]).any():
            assert status == -1
        else:
            np.testing.assert_array_equal(got[0], want[r].view(np.uint16))
            assert status == int(np.isinf(want[r]).any())


def test_half_rounding_matches_numpy_casts():
    """The software float -> float16 rounding: random float bit patterns, every half, the midpoints between
    neighbouring halves and their float neighbours (ties to even, subnormals, overflow at 65520)."""
    rng = np.random.default_rng(7)
    floats = rng.integers(0, 1 << 32, 200_000, dtype=np.uint64).astype(np.uint32).view(np.float32)
    halves = np.arange(0x7C00, dtype=np.uint16).view(np.float16).astype(np.float64)
    mids = ((halves[:-1] + halves[1:]) / 2).astype(np.float32)
    values = np.concatenate([floats, halves.astype(np.float32), mids, -mids, np.nextafter(mids, np.float32(1e9)),
                             np.nextafter(mids, np.float32(0)), np.float32([65519.9, 65520, 1e30, np.inf])])
    values = values[~np.isnan(values)]
    got = np.empty(values.size, np.uint16)
    native.half_round_bits(values, got)
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(got, values.astype(np.float16).view(np.uint16))


def test_binary_f16_in_place_keeps_sources_when_it_declines():
    a = np.ones((2, 16), np.float16)
    a[1, 3] = np.nan
    before = a.copy()
    assert native.binary_f16(0, a.view(np.uint16), np.ones((2, 16), np.uint16), a.view(np.uint16)) == -1
    np.testing.assert_array_equal(a.view(np.uint16), before.view(np.uint16))
    a = np.ones((2, 16), np.float16)
    assert native.binary_f16(0, a.view(np.uint16), np.full((2, 16), 2, np.float16).view(np.uint16),
                             a.view(np.uint16)) == 0
    assert (a == 3).all()


def test_half_semantics_use_the_compiled_loop_and_fall_back_on_nan():
    """The float16 rows' semantics (block by block and fused lockstep runs): numpy's bits either way."""
    from npusim.sim.isa.binary import ROWS
    vmax = next(row for row in ROWS if row.opcode == "vmax")
    vdiv = next(row for row in ROWS if row.opcode == "vdiv")
    rng = np.random.default_rng(3)
    a = rng.standard_normal((4, 100)).astype(np.float16)
    b = rng.standard_normal((4, 100)).astype(np.float16)
    a[0, 0], b[0, 0] = -0.0, 0.0
    for row, ufunc in ((vmax, np.maximum), (vdiv, np.divide)):
        for x, y in ((a, b), (a[1], b[2]), (a[:, ::2], b[:, ::2])):
            with np.errstate(all="ignore"):
                np.testing.assert_array_equal(row.semantics([x, y], None, np.dtype(np.float16)).view(np.uint16),
                                              ufunc(x, y).view(np.uint16))
    from npusim.sim.isa.half_native import half_result
    nan = a.copy()
    nan[2, 5] = np.nan
    assert half_result(0, nan, b) is None                      # numpy decides NaN bits
    np.testing.assert_array_equal(half_result(0, a, b).view(np.uint16), (a + b).view(np.uint16))


def test_whole_wave_copies_decline_sizes_whose_bounds_would_overflow():
    """Huge pitches or starts (only direct callers can pass them: moves check bounds first) are declined, not
    turned into wrapped addresses."""
    dst, src, gm = np.zeros((2, 64), np.uint8), np.zeros((2, 64), np.uint8), np.zeros(256, np.uint8)
    assert native.copy_grid(dst, 0, 2 ** 62, src, 0, 0, 3, 4) == -1
    assert native.copy_gm_rows(dst, 0, 0, gm, np.array([0, 0], np.int64), 2 ** 62, 3, 4) == -1
    assert native.copy_gm_rows(dst, 0, 1, gm, np.array([2 ** 63 - 2, 0], np.int64), 1, 1, 4) == -1
    assert native.copy_grid(dst, 0, 8, src, 0, 8, 3, 4) == 0          # an ordinary copy still runs
