"""Pipe synchronisation TIK inserts (kernels never write flags): flags between dependent pipes, pipelined
thread_num=2 loops, barriers where a loop carries a cross-pipe dependence; the cycle model sees the difference."""
import numpy as np
import pytest
from tbe import tik

from npusim.errors import TikMemoryError
from npusim.sim import profile
from npusim.sim.kernel import iter_instrs


def _tiled_add(thread_num, tiles=8, tile=4096):
    ti = tik.Tik()
    n = tiles * tile
    x = ti.Tensor("float16", (n,), name="x", scope=tik.scope_gm)
    z = ti.Tensor("float16", (n,), name="z", scope=tik.scope_gm)
    with ti.for_range(0, tiles, thread_num=thread_num) as t:
        u = ti.Tensor("float16", (tile,), name="u", scope=tik.scope_ubuf)
        ti.data_move(u, x[t * tile], 0, 1, tile // 16, 0, 0)
        ti.vec_adds(128, u, u, 1.0, tile // 128, 8, 8)
        ti.data_move(z[t * tile], u, 0, 1, tile // 16, 0, 0)
    ti.BuildCCE(f"tik_tiled_{thread_num}", [x], [z])
    return ti, n


def _opcodes(ti):
    return [instr.opcode for _, instr in iter_instrs(ti.built.kernel.body)]


def test_dependent_pipes_get_flags_and_double_buffering_overlaps_tiles(soc):
    cycles = {}
    for threads in (1, 2):
        ti, n = _tiled_add(threads)
        ops = _opcodes(ti)
        assert ops.count("set_flag") == ops.count("wait_flag") > 0
        x = np.arange(n).astype(np.float16)
        with profile() as session:
            z, = ti.tikdb.start_debug({"x": x}, interactive=False)
        np.testing.assert_array_equal(z, x + np.float16(1))
        cycles[threads] = session.rows()[0]["cycles"]
        body = next(stmt for stmt in ti.built.kernel.body if hasattr(stmt, "var"))
        starts_with_barrier = body.body[0].opcode == "pipe_barrier"
        assert starts_with_barrier == (threads == 1)      # serial: every iteration waits for the previous one
    assert cycles[2] < cycles[1]                          # loads of tile i+1 overlap the add of tile i


def test_a_loop_carrying_a_cross_pipe_dependence_is_not_pipelined(soc):
    ti = tik.Tik()
    x = ti.Tensor("float16", (8 * 128,), name="x", scope=tik.scope_gm)
    z = ti.Tensor("float16", (128,), name="z", scope=tik.scope_gm)
    acc = ti.Tensor("float16", (128,), name="acc", scope=tik.scope_ubuf)
    ti.vec_dup(128, acc, 0, 1, 8)
    with ti.for_range(0, 8, thread_num=2) as t:
        u = ti.Tensor("float16", (128,), name="u", scope=tik.scope_ubuf)
        ti.data_move(u, x[t * 128], 0, 1, 8, 0, 0)
        ti.vec_add(128, acc, acc, u, 1, 8, 8, 8)
        ti.data_move(z, acc, 0, 1, 8, 0, 0)          # MTE3 reads acc, V writes it next iteration
    ti.BuildCCE("tik_carried", [x], [z])
    loop = next(stmt for stmt in ti.built.kernel.body if hasattr(stmt, "var"))
    assert loop.body[0].opcode == "pipe_barrier"
    x_np = np.random.default_rng(9).integers(-3, 4, 8 * 128).astype(np.float16)
    z_np, = ti.tikdb.start_debug({"x": x_np}, interactive=False)
    np.testing.assert_array_equal(z_np, x_np.reshape(8, 128).sum(axis=0))


def test_thread_num_2_tensors_take_two_copies_of_ub():
    ti = tik.Tik()
    half = ti.get_available_buffer_size(tik.scope_ubuf) // 2
    with ti.for_range(0, 4, thread_num=2):
        ti.Tensor("uint8", (half,), name="fits", scope=tik.scope_ubuf)      # two copies fill UB exactly
    with ti.for_range(0, 4, thread_num=2):
        with pytest.raises(TikMemoryError, match=r"\(2 buffer copies\)"):
            ti.Tensor("uint8", (half + 32,), name="too_big", scope=tik.scope_ubuf)
