"""The lockstep executor's fast paths against the block-by-block reference: loops of moves run as one copy (with
and without a tail branch), accumulation chains, vcadd on strided sources, results computed straight into the
destination, strided (grid) operand plans.  Every kernel runs in mode "lockstep" (which raises instead of falling
back) and in mode "reference"; GM bytes and per-block trace records must be identical, and errors the same type
at the same instruction."""
from __future__ import annotations

import numpy as np
import pytest

from npusim.errors.sim import SimulatorError
from npusim.sim import KernelBuilder, get_chip
from sim_helpers import run_mode as _run, same_as_reference as _same

CHIPS = ("Ascend910", "Ascend910B1")     # saturation mode, inf_nan mode


def _gather_kernel(rows: int, block_dim: int, tail: bool, chip: str):
    """Each block gathers its ``rows`` two-float rows with one 32-byte move per row (as TBE's row gather does),
    sums the gathered block-rows with vcadd and writes them out; with ``tail`` the last row of the tensor is
    read through a scalar copy instead (the move would run past the tensor)."""
    kb = KernelBuilder("gather", chip=get_chip(chip))
    n = rows * block_dim
    x = kb.tensor("float32", (n * 2 + (0 if tail else 8),), "GM", "x")
    y = kb.tensor("float32", (n,), "GM", "y")
    ub = kb.tensor("float32", (rows * 8,), "UB", "ub")
    misc = kb.tensor("float32", (8,), "UB", "misc")
    out = kb.tensor("float32", (max(8, rows),), "UB", "out")
    reg = kb.scalar("int32", "r")
    with kb.for_range(0, rows) as i:
        src = (kb.block_idx * rows + i) * 2
        if tail:
            with kb.if_scope(src + 8 > n * 2):
                kb.data_move(misc, x[n * 2 - 8], 0, 1, 1, 0, 0)
                for k in range(2):
                    reg.set_as(misc.reinterpret_cast_to("int32")[src - (n * 2 - 8) + k])
                    ub.reinterpret_cast_to("int32")[i * 8 + k].set_as(reg)
            with kb.else_scope():
                kb.data_move(ub[i * 8], x[src], 0, 1, 1, 0, 0)
        else:
            kb.data_move(ub[i * 8], x[src], 0, 1, 1, 0, 0)
    kb.vcadd(2, out, ub, rows, 1, 1, 1)
    kb.data_move(y[kb.block_idx * rows], out, 0, 1, rows // 8, 0, 0)
    return kb.build(inputs=[x], outputs=[y], check=False)


@pytest.mark.parametrize("chip", CHIPS)
@pytest.mark.parametrize("tail", [False, True])
def test_loop_of_moves_runs_as_one_copy(chip, tail, monkeypatch):
    rows, blocks = 64, 4
    kernel = _gather_kernel(rows, blocks, tail, chip)
    x = np.random.default_rng(1).standard_normal(rows * blocks * 2).astype(np.float32)
    y = np.zeros(rows * blocks, dtype=np.float32)
    if not tail:    # the untailed kernel's last move reads 6 floats past the rows: x is declared longer
        x = np.concatenate([x, np.zeros(8, np.float32)])
    _, got = _same(kernel, [x, y], chip, monkeypatch, blocks)
    want = x[:rows * blocks * 2].reshape(-1, 2)
    np.testing.assert_array_equal(got, want[:, 0] + want[:, 1])


def test_loop_of_moves_out_of_bounds_raises_like_the_reference(monkeypatch):
    kb = KernelBuilder("oob", chip=get_chip("Ascend910"))
    x = kb.tensor("float32", (64,), "GM", "x")
    ub = kb.tensor("float32", (8 * 40,), "UB", "ub")
    with kb.for_range(0, 40) as i:                    # trip 29 reads past x's 64 floats
        kb.data_move(ub[i * 8], x[i * 2], 0, 1, 1, 0, 0)
    kernel = kb.build(inputs=[x], outputs=[], check=False)
    errors = []
    for mode in ("lockstep", "reference"):
        with pytest.raises(SimulatorError) as caught:
            _run(kernel, [np.zeros(64, np.float32)], "Ascend910", mode, monkeypatch, 2)
        errors.append((type(caught.value), caught.value.instr_index))
    assert errors[0] == errors[1]


def _chain_kernel(opcode: str, count: int, chip: str):
    kb = KernelBuilder("chain", chip=get_chip(chip))
    x = kb.tensor("float32", (64 * (count + 1),), "GM", "x")
    ub = kb.tensor("float32", (64 * (count + 1),), "UB", "ub")
    kb.data_move(ub, x, 0, 1, 8 * (count + 1), 0, 0)
    acc = ub[64 * count]
    for k in range(count):
        kb.emit(opcode, 64, acc, acc, ub[64 * k], 1, 1, 1, 1, 8, 8, 8)
    kb.data_move(x, ub, 0, 1, 8 * (count + 1), 0, 0)
    return kb.build(inputs=[x], outputs=[], check=False)


@pytest.mark.parametrize("chip", CHIPS)
@pytest.mark.parametrize("opcode", ["vadd", "vmax", "vmul", "vsub"])
@pytest.mark.parametrize("special", [None, "inf", "nan", "overflow"])
def test_accumulation_chains_match_the_reference(chip, opcode, special, monkeypatch):
    count = 12
    x = np.random.default_rng(2).standard_normal(64 * (count + 1)).astype(np.float32)
    if special == "inf":
        x[64 * 3 + 5] = np.inf
        x[64 * 7 + 9] = -np.inf
    elif special == "nan":
        x[64 * 4 + 1] = np.nan
    elif special == "overflow":
        x[:] = 3e38
    _same(_chain_kernel(opcode, count, chip), [x], chip, monkeypatch, 1)
    _same(_chain_kernel(opcode, count, chip), [x], chip, monkeypatch, 1)


@pytest.mark.parametrize("chip", CHIPS)
@pytest.mark.parametrize("mask,rep_stride,blk_stride", [(64, 16, 1), (64, 0, 1), (32, 8, 2), (5, 8, 1),
                                                        ((0, 0xF0F0F0F0F0F0F0F0), 8, 1)])
def test_strided_vector_operands_match_the_reference(chip, mask, rep_stride, blk_stride, monkeypatch):
    """vcadd / vadd / vexp with repeat and block strides (grid plans) on several blocks, values with infinities
    (saturated on Ascend910)."""
    kb = KernelBuilder("strided", chip=get_chip(chip))
    x = kb.tensor("float32", (4096 * 4,), "GM", "x")
    ub = kb.tensor("float32", (4096,), "UB", "ub")
    res = kb.tensor("float32", (1024,), "UB", "res")
    kb.data_move(ub, x[kb.block_idx * 4096], 0, 1, 512, 0, 0)
    kb.vcadd(mask, res, ub, 6, 2, blk_stride, rep_stride)
    kb.vadd(mask, ub[2048], ub, ub[64], 6, 1, blk_stride, blk_stride, 8, rep_stride, rep_stride)
    kb.vexp(mask, ub[3072], ub, 6, 1, blk_stride, 8, rep_stride)
    kb.vadd(64, ub, ub, ub, 4, 1, 1, 1, 8, 8, 8)
    kb.data_move(x[kb.block_idx * 4096], ub, 0, 1, 512, 0, 0)
    kb.data_move(x[kb.block_idx * 4096 + 2048], res, 0, 1, 8, 0, 0)
    kernel = kb.build(inputs=[x], outputs=[], check=False)
    data = (np.random.default_rng(3).standard_normal(4096 * 4) * 60).astype(np.float32)
    data[7] = np.inf
    data[4096 + 200] = 3e38
    _same(kernel, [data], chip, monkeypatch, 4)


@pytest.mark.parametrize("chip", CHIPS)
@pytest.mark.parametrize("dtype", ["float16", "float32"])
def test_results_into_the_destination_with_overlap_and_saturation(chip, dtype, monkeypatch):
    """In-place and overlapping (src ahead of dst across repeats) element-wise instructions, scalar forms,
    values that overflow."""
    kb = KernelBuilder("inplace", chip=get_chip(chip))
    n = 2048
    x = kb.tensor(dtype, (n * 2,), "GM", "x")
    ub = kb.tensor(dtype, (n,), "UB", "ub")
    lanes = 128 if dtype == "float16" else 64
    kb.data_move(ub, x[kb.block_idx * n], 0, 1, n * np.dtype(dtype).itemsize // 32, 0, 0)
    kb.vmul(lanes, ub, ub, ub, 4, 1, 1, 1, 8, 8, 8)
    kb.vadds(lanes, ub, ub[lanes], 60000.0, 4, 1, 1, 8, 8)
    kb.vmuls(lanes, ub, ub, 1e30 if dtype == "float32" else 300.0, 8, 1, 1, 8, 8)
    kb.vsub(lanes, ub, ub[lanes * 2], ub, 2, 1, 1, 1, 8, 8, 8)
    kb.data_move(x[kb.block_idx * n], ub, 0, 1, n * np.dtype(dtype).itemsize // 32, 0, 0)
    kernel = kb.build(inputs=[x], outputs=[], check=False)
    data = (np.random.default_rng(4).standard_normal(n * 2) * 100).astype(dtype)
    _same(kernel, [data], chip, monkeypatch, 2)


@pytest.mark.parametrize("chip", CHIPS)
def test_loops_of_vector_instructions_match_the_reference(chip, monkeypatch):
    """Loops around one element-wise instruction: a row broadcast (vor copies), in-place scalar ops, a scalar
    that is the loop variable, and trips that read what an earlier trip wrote (these run trip by trip)."""
    kb = KernelBuilder("trip_vectors", chip=get_chip(chip))
    x = kb.tensor("float32", (4096 * 2,), "GM", "x")
    ub = kb.tensor("float32", (4096,), "UB", "ub")
    kb.data_move(ub, x[kb.block_idx * 4096], 0, 1, 512, 0, 0)
    as16 = ub.reinterpret_cast_to("int16")
    with kb.for_range(0, 12) as i:                       # broadcast row 0 (64 floats) to rows 1..12
        kb.vor(128, as16[128 + i * 128], as16[0], as16[0], 1, 1, 1, 1, 8, 8, 8)
    with kb.for_range(0, 8) as i:                        # in place, two repeats per trip
        kb.vadds(64, ub[1024 + i * 128], ub[1024 + i * 128], 1e38, 2, 1, 1, 8, 8)
    with kb.for_range(0, 6) as i:                        # scalar from the loop variable
        kb.vmuls(64, ub[2048 + i * 64], ub[2048 + i * 64], i, 1, 1, 1, 8, 8)
    with kb.for_range(0, 6) as i:                        # trip i reads trip i-1's result
        kb.vexp(64, ub[3072 + (i + 1) * 64], ub[3072 + i * 64], 1, 1, 1, 8, 8)
    with kb.for_range(0, 5) as i:                        # vector_dup rows with a strided source-free pattern
        kb.vector_dup(32, ub[3584 + i * 64], 2.5, 1, 1, 8)
    kb.data_move(x[kb.block_idx * 4096], ub, 0, 1, 512, 0, 0)
    kernel = kb.build(inputs=[x], outputs=[], check=False)
    data = (np.random.default_rng(5).standard_normal(4096 * 2) * 3).astype(np.float32)
    _same(kernel, [data], chip, monkeypatch, 2)


@pytest.mark.parametrize("chip", CHIPS)
@pytest.mark.parametrize("gate", [False, True])
def test_loops_of_binary_instructions_into_the_destination(chip, gate, monkeypatch):
    """Loops around vadd / vmax whose trips compute straight into the destination grid: a row read by every trip
    (step 0, as a broadcast row), in-place accumulation, overflowing and non-finite values (saturated on a chip in
    saturation mode); with ``gate`` only some blocks run the loops (rows of a batch taking a branch)."""
    kb = KernelBuilder("trip_binary", chip=get_chip(chip))
    x = kb.tensor("float32", (4096 * 4,), "GM", "x")
    ub = kb.tensor("float32", (4096,), "UB", "ub")
    kb.data_move(ub, x[kb.block_idx * 4096], 0, 1, 512, 0, 0)

    def loops():
        with kb.for_range(0, 16) as i:                   # rows 1..16 += row 0 (step-0 source)
            kb.vadd(64, ub[64 + i * 64], ub[64 + i * 64], ub[0], 1, 1, 1, 1, 8, 8, 8)
        with kb.for_range(0, 8) as i:                    # two repeats per trip, into another region
            kb.vmax(64, ub[2048 + i * 128], ub[1024 + i * 128], ub[64 + i * 64], 2, 1, 1, 1, 8, 8, 0)
        with kb.for_range(0, 6) as i:                    # overflow to inf (saturated to max on Ascend910)
            kb.vmul(64, ub[3072 + i * 64], ub[3072 + i * 64], ub[3072 + i * 64], 1, 1, 1, 1, 8, 8, 8)
    if gate:
        with kb.if_scope(kb.block_idx < 2):
            loops()
    else:
        loops()
    kb.data_move(x[kb.block_idx * 4096], ub, 0, 1, 512, 0, 0)
    kernel = kb.build(inputs=[x], outputs=[], check=False)
    data = (np.random.default_rng(6).standard_normal(4096 * 4) * 3).astype(np.float32)
    data[3072 + 5] = 3e30
    data[64 * 3 + 1] = np.inf
    data[64 * 5 + 2] = -np.inf
    data[4096 + 64 * 4] = np.nan
    _same(kernel, [data], chip, monkeypatch, 4)
