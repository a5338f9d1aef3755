"""TIK element-wise kernels on the simulator, through tikdb, compared with numpy bit for bit."""
import numpy as np
import pytest
from tik_kernels import scaled_relu_kernel, soc_core_num, vadd_kernel


@pytest.mark.parametrize("extra", [0, 37])
def test_multicore_double_buffered_vadd_with_an_unaligned_tail(soc, extra):
    total = soc_core_num() * 2 * 2048 + extra
    ti = vadd_kernel(total)
    assert ti.built.kernel.block_dim == soc_core_num()
    rng = np.random.default_rng(1)
    x = rng.standard_normal(total).astype(np.float16)
    y = rng.standard_normal(total).astype(np.float16)
    z, = ti.tikdb.start_debug({"x": x, "y": y}, interactive=False)
    assert z.dtype == np.float16 and z.shape == (total,)
    np.testing.assert_array_equal(z, x + y)


def test_float32_vadd_uses_64_lanes(soc):
    total = soc_core_num() * 2048
    ti = vadd_kernel(total, dtype="float32")
    x = np.arange(total, dtype=np.float32) / 7
    y = np.full(total, 0.25, np.float32)
    z, = ti.tikdb.start_debug({"x": x, "y": y}, interactive=False)
    np.testing.assert_array_equal(z, x + y)


def test_scalars_from_tensors_input_scalar_bounds_and_old_forms(soc):
    rows, cols = 6, 256
    ti = scaled_relu_kernel(rows, cols)
    rng = np.random.default_rng(2)
    x = rng.standard_normal((rows, cols)).astype(np.float16)
    params = np.zeros(16, np.float16)
    params[:2] = [1.5, -0.25]
    y, = ti.tikdb.start_debug({"x": x, "params": params, "row_count": 4}, interactive=False)
    want = np.maximum((x * np.float16(1.5)) + np.float16(-0.25), np.float16(0))
    np.testing.assert_array_equal(y[:4], want[:4])
    # rows past row_count are never written: they hold the random bytes the output started with, not the result
    assert not np.array_equal(y[4:], want[4:])


def test_block_strides_of_the_old_form_pick_every_other_block(soc):
    from tbe import tik
    ti = tik.Tik()
    x = ti.Tensor("float16", (256,), name="x", scope=tik.scope_gm)
    y = ti.Tensor("float16", (128,), name="y", scope=tik.scope_gm)
    xu = ti.Tensor("float16", (256,), name="xu", scope=tik.scope_ubuf)
    yu = ti.Tensor("float16", (128,), name="yu", scope=tik.scope_ubuf)
    ti.data_move(xu, x, 0, 1, 16, 0, 0)
    ti.vector_dup(128, yu, 0.0, 1, 1, 8)
    ti.vadds(128, yu, xu, 1.0, 1, 1, 2, 8, 16)    # src block stride 2: blocks 0, 2, 4 ... of x
    ti.data_move(y, yu, 0, 1, 8, 0, 0)
    ti.BuildCCE("tik_blk_stride", [x], [y])
    x_np = np.arange(256).astype(np.float16)
    y_np, = ti.tikdb.start_debug({"x": x_np}, interactive=False)
    np.testing.assert_array_equal(y_np, x_np.reshape(16, 16)[::2].reshape(-1) + np.float16(1))


def test_mask_pair_selects_lanes_and_keeps_the_others(soc):
    from tbe import tik
    ti = tik.Tik()
    x = ti.Tensor("float16", (128,), name="x", scope=tik.scope_gm)
    y = ti.Tensor("float16", (128,), name="y", scope=tik.scope_gm)
    xu = ti.Tensor("float16", (128,), name="xu", scope=tik.scope_ubuf)
    ti.data_move(xu, x, 0, 1, 8, 0, 0)
    ti.vec_muls([0x8000000000000001, 0x5555555555555555], xu, xu, 2.0, 1, 8, 8)
    ti.data_move(y, xu, 0, 1, 8, 0, 0)
    ti.BuildCCE("tik_mask_pair", [x], [y])
    x_np = np.arange(128).astype(np.float16)
    y_np, = ti.tikdb.start_debug({"x": x_np}, interactive=False)
    lanes = np.zeros(128, bool)
    lanes[0:64:2] = True
    lanes[[64, 127]] = True
    np.testing.assert_array_equal(y_np, np.where(lanes, x_np * np.float16(2), x_np))


def test_if_else_scope_and_tik_all_any_on_scalars(soc):
    from tbe import tik
    ti = tik.Tik()
    x = ti.Tensor("int32", (8,), name="x", scope=tik.scope_gm)
    y = ti.Tensor("int32", (8,), name="y", scope=tik.scope_gm)
    xu = ti.Tensor("int32", (8,), name="xu", scope=tik.scope_ubuf)
    ti.data_move(xu, x, 0, 1, 1, 0, 0)
    with ti.for_range(0, 8) as i:
        v = ti.Scalar("int32", name="v", init_value=xu[i])
        with ti.if_scope(tik.all(v > 2, v < 6, True)):
            xu[i].set_as(v * 10)
        with ti.else_scope():
            with ti.if_scope(tik.any(v == 0, v == 7)):
                xu[i].set_as(-1)
    ti.data_move(y, xu, 0, 1, 1, 0, 0)
    ti.BuildCCE("tik_if_else", [x], [y])
    y_np, = ti.tikdb.start_debug({"x": np.arange(8, dtype=np.int32)}, interactive=False)
    np.testing.assert_array_equal(y_np, [-1, 1, 2, 30, 40, 50, 6, -1])


def test_loop_bound_and_offsets_from_scalars_loaded_from_a_tiling_tensor(soc):
    """Tiling arguments in a GM tensor (as kernels with a tiling_gm do): a Scalar bound and a Scalar offset."""
    from tbe import tik
    ti = tik.Tik()
    tiling = ti.Tensor("int32", (8,), name="tiling", scope=tik.scope_gm)
    x = ti.Tensor("float32", (512,), name="x", scope=tik.scope_gm)
    y = ti.Tensor("float32", (512,), name="y", scope=tik.scope_gm)
    tu = ti.Tensor("int32", (8,), name="tu", scope=tik.scope_ubuf)
    ti.data_move(tu, tiling, 0, 1, 1, 0, 0)
    loops = ti.Scalar("int32", name="loops", init_value=tu[0])
    start = ti.Scalar("int32", name="start")
    start.set_as(tu[1])
    xu = ti.Tensor("float32", (64,), name="xu", scope=tik.scope_ubuf)
    with ti.for_range(0, loops) as i:
        ti.data_move(xu, x[start + i * 64], 0, 1, 8, 0, 0)
        ti.vec_muls(64, xu, xu, -1.0, 1, 8, 8)
        ti.data_move(y[start + i * 64], xu, 0, 1, 8, 0, 0)
    ti.BuildCCE("tik_tiling", [tiling, x], [y])
    x_np = np.arange(512, dtype=np.float32)
    y_np, = ti.tikdb.start_debug({"tiling": np.array([3, 128, 0, 0, 0, 0, 0, 0], np.int32), "x": x_np},
                                 interactive=False)
    np.testing.assert_array_equal(y_np[128:320], -x_np[128:320])
