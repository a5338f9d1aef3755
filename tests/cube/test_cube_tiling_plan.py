"""Issue 15: the cube tiling (te_compat.cube.tiling) fits the chip's buffers, splits large problems over every
cube core, and matmuls of odd shapes on the chosen tiles (sub-tiles in alternating L0C slots, a resident A panel,
several k-steps per L1 load) still match numpy."""
import numpy as np
import pytest

from npusim.custom.backends.tbe_formats import from_format, to_format
from npusim.sim import get_chip, set_chip
from te_compat.cube.tiling import choose_tiling
from te_compat.dsl.cube import MatmulDesc

CHIPS = ["Ascend910", "Ascend910B1"]
FRACTAL_BYTES_F16 = 16 * 16 * 2
ACC_FRACTAL_BYTES = 16 * 16 * 4


def _desc(m, k, n, batch=(), out_dtype="float16"):
    return MatmulDesc(m, k, n, batch, False, True, "FRACTAL_NZ", "FRACTAL_NZ", "FRACTAL_NZ", "float16", "float32",
                      out_dtype, False)


@pytest.mark.parametrize("chip_name", CHIPS)
@pytest.mark.parametrize("shape", [(33, 65, 47), (1024, 1024, 1024), (48, 1040, 752), (512, 256, 512),
                                   (256, 512, 256), (2048, 1024, 2048), (16, 4096, 16), (4096, 16, 4096)])
def test_tiles_divide_the_problem_and_fit_every_buffer(chip_name, shape):
    chip = get_chip(chip_name)
    t = choose_tiling(_desc(*shape), chip, chip.cube_core_num)
    # the least tiles that cover M and N (a size that does not divide them overlaps its last tile: tile_start)
    assert (t.m_tiles - 1) * t.mt < t.m1 <= t.m_tiles * t.mt and (t.n_tiles - 1) * t.nt < t.n1 <= t.n_tiles * t.nt
    assert sum(t.parts) == t.nt and len(t.parts) == t.sub
    assert all(width % t.nc == 0 for width in t.parts)
    assert t.kl1 % t.kt == 0 and t.k1 % t.kl1 == 0
    assert t.tiles % t.block_dim == 0 and 1 <= t.block_dim <= chip.cube_core_num
    assert 2 * t.mt * t.kt * FRACTAL_BYTES_F16 <= chip.l0a_bytes          # ping-pong L0A
    assert 2 * t.kt * t.ns * FRACTAL_BYTES_F16 <= chip.l0b_bytes          # ping-pong L0B
    assert t.l0c_columns * t.mt * ACC_FRACTAL_BYTES <= chip.l0c_bytes                # the L0C slots together
    a_l1 = t.mt * t.k1 if t.a_resident else 2 * t.mt * t.kl1
    assert (a_l1 + 2 * t.kl1 * t.ns) * FRACTAL_BYTES_F16 <= chip.l1_bytes
    assert t.mt * t.nc * (ACC_FRACTAL_BYTES + FRACTAL_BYTES_F16) <= chip.ub_bytes


@pytest.mark.parametrize("chip_name, shape, batch", [
    ("Ascend910", (2048, 1024, 2048), ()), ("Ascend910", (4096, 1024, 4096), ()),
    ("Ascend910", (256, 256, 256), (32,)), ("Ascend910B1", (256, 256, 256), (24,))])
def test_large_problems_use_every_cube_core(chip_name, shape, batch):
    chip = get_chip(chip_name)
    t = choose_tiling(_desc(*shape, batch=batch), chip, chip.cube_core_num)
    assert t.block_dim == chip.cube_core_num
    assert t.tiles_per_block * t.block_dim == t.tiles


def test_the_core_limit_caps_block_dim():
    chip = get_chip("Ascend910")
    assert choose_tiling(_desc(2048, 1024, 2048), chip, 8).block_dim == 8
    assert choose_tiling(_desc(2048, 1024, 2048), chip, 1).block_dim == 1


def _run_nz(m, k, n, seed):
    """The m x k x n float16 matmul (A and B^T in FRACTAL_NZ, a FRACTAL_NZ result) through the DSL's cube
    schedule: (result as [m, n] float32, the reference, the schedule's tiling)."""
    import npusim.compat  # noqa: F401
    import te.lang.cce as cce
    from te import tvm
    from te_compat.build import BuiltKernel
    from te_compat.build.cce import build_kernel
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((m, k)).astype(np.float16)
    bt = rng.standard_normal((n, k)).astype(np.float16)
    a_nz, bt_nz = to_format(a, "FRACTAL_NZ"), to_format(bt, "FRACTAL_NZ")
    pa = tvm.placeholder(a_nz.shape, name="a", dtype="float16")
    pb = tvm.placeholder(bt_nz.shape, name="b", dtype="float16")
    res = cce.matmul(pa, pb, False, True, format_a="FRACTAL_NZ", format_b="FRACTAL_NZ", dst_dtype="float16")
    sch = cce.auto_schedule(res)
    kernel = BuiltKernel.from_result(build_kernel(sch, {"name": f"mm_{m}_{k}_{n}", "tensor_list": [pa, pb, res]}))
    out = kernel.run(a_nz, bt_nz)
    out = out[0] if isinstance(out, (list, tuple)) else out
    got = from_format(np.asarray(out), "FRACTAL_NZ", (m, n)).astype(np.float32)
    return got, a.astype(np.float32) @ bt.astype(np.float32).T, sch.tiling


@pytest.mark.parametrize("chip_name", CHIPS)
@pytest.mark.parametrize("m, k, n", [(33, 65, 47), (47, 33, 65), (65, 47, 33), (256, 512, 256), (512, 256, 512),
                                     (100, 300, 200)])
def test_odd_and_sub_tiled_shapes_match_numpy(chip_name, m, k, n):
    set_chip(chip_name)
    got, ref, tiling = _run_nz(m, k, n, seed=m + k + n)
    assert got.shape == (m, n)
    np.testing.assert_allclose(got, ref, rtol=2e-3, atol=2e-2)
    assert tiling.block_dim >= 1


def test_a_shape_with_sub_tiles_and_a_resident_panel_is_covered():
    """(256, 512, 256) takes sub-tiles with the A panel kept in L1 (the path the test above runs); 1024^3 on
    Ascend910 takes a wide then a narrow sub-tile (test_cube_tiling_profile checks its result)."""
    t = choose_tiling(_desc(256, 512, 256), get_chip("Ascend910"), 32)
    assert t.sub > 1 and t.a_resident
    t = choose_tiling(_desc(256, 512, 256), get_chip("Ascend910B1"), 24)
    assert t.sub > 1 and t.kl1 > t.kt
    t = choose_tiling(_desc(1024, 1024, 1024), get_chip("Ascend910"), 32)
    assert len(set(t.parts)) == 2 and t.parts[0] > t.parts[1] and t.a_resident


@pytest.mark.parametrize("chip_name", CHIPS)
def test_the_first_sub_tiles_load_plan_covers_k_in_order(chip_name):
    """One tile per core (1024^3), a cast-only result: the tile starts with a head over its first two sub-tiles
    and the first sub-tile's loads are planned (te_compat.cube.load_plan); each B piece is whole k-steps within
    one L1 slot (a head's B, two sub-tiles wide, too), the A pieces arrive no later than the B of the same K, both
    cover K once (the result is checked in test_cube_tiling_profile; K still accumulates in ascending order)."""
    chip = get_chip(chip_name)
    t = choose_tiling(_desc(1024, 1024, 1024), chip, chip.cube_core_num, cast_only=True)
    assert t.tiles_per_block == 1 and t.a_resident and t.first_loads and t.head
    assert choose_tiling(_desc(1024, 1024, 1024), chip, chip.cube_core_num).head == ()     # an epilogue: none
    b_done = a_done = 0
    for i, (b_count, a_count) in enumerate(t.head + t.first_loads):
        width = t.parts[0] + t.parts[1] if i < len(t.head) else t.parts[0]
        assert 0 < b_count and b_count % t.kt == 0 and b_count * width <= t.kl1 * t.ns
        b_done, a_done = b_done + b_count, a_done + a_count
        assert a_done >= b_done
    assert b_done == a_done == t.k1
    # several tiles per core: later tiles' first loads overlap the tile before, so no plan
    several = choose_tiling(_desc(2048, 1024, 2048), chip, chip.cube_core_num, cast_only=True)
    assert several.first_loads == () and several.head == ()


@pytest.mark.parametrize("edit, cause", [
    (dict(nc=8), "UB chunks of 8 columns do not divide the sub-tiles (12, 4)"),
    (dict(widths=(12, 2)), "sub-tiles (12, 2) do not make 2 sub-tiles of the tile's 16 columns"),
    (dict(kl=6), "loads of 6 K fractals are not whole k-steps of 4"),
    (dict(head=(), first_loads=((12, 12),) * 4), "do not each cover K = 64 fractals of B and of A"),
    (dict(first_loads=((12, 12),) * 3 + ((12, 8),)), "do not each cover K = 64 fractals of B and of A"),
    (dict(first_loads=()), "do not each cover K = 64 fractals of B and of A"),    # a head alone: 16 of 64
    (dict(head=(), first_loads=(), kl=24), "loads of 24 K fractals do not divide K = 64"),
    (dict(first_loads=((16, 16),) * 2 + ((14, 14), (2, 2))), "are not whole k-steps of 4"),
])
def test_a_tiling_the_kernel_cannot_run_whole_is_refused(edit, cause):
    """A tiling whose UB chunks, loads or planned first loads would leave part of the result or of K out (the
    kernel would drop K fractals or wait for a flag never set) is a ValueError naming the cause."""
    import dataclasses
    tiling = choose_tiling(_desc(1024, 1024, 1024), get_chip("Ascend910"), 32, cast_only=True)
    assert tiling.parts == (12, 4) and tiling.head    # the shape these edits start from
    with pytest.raises(ValueError, match="cube tiling: .*" + cause.replace("(", r"\(").replace(")", r"\)")):
        dataclasses.replace(tiling, **edit)


def test_a_one_sub_tile_tiling_with_a_load_plan_runs_whole(monkeypatch):
    """A hand-made tiling the tiler never makes (it plans loads only for two or more sub-tiles): one sub-tile of a
    core's only tile, its loads planned.  The planned loads do not split the sub-tile's last k-steps, so its
    epilogue runs whole (it used to be skipped as if the split had run: a SyncError)."""
    import dataclasses

    import te_compat.cube.schedule as cube_schedule
    chosen = cube_schedule.choose_tiling

    def tiler(*args, **kwargs):
        return dataclasses.replace(chosen(*args, **kwargs), sub=1, widths=(), nc=4, head=(),
                                   first_loads=((16, 16),) * 4)

    monkeypatch.setattr(cube_schedule, "choose_tiling", tiler)
    set_chip("Ascend910")
    got, ref, tiling = _run_nz(1024, 1024, 1024, seed=5)
    assert tiling.sub == 1 and tiling.first_loads and tiling.tiles_per_block == 1
    np.testing.assert_allclose(got, ref, rtol=2e-3, atol=2e-2)
