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
