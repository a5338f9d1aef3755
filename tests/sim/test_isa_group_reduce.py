"""vcgadd / vcgmax / vcgmin (one result per block) and vcpadd (one per lane pair) under count and bit-pair masks
(a block or pair wholly masked off writes nothing), block / repeat strides and dst strides, and the fused vmadd /
vmaddrelu, against element-by-element references."""
import numpy as np
import pytest

from npusim.sim import get_chip
from sim_helpers import address, run_reduction, lanes_of, ref_elementwise, run_on_ub, tree_sum as pair_tree

RNG = np.random.default_rng(33)
MASKS = {128: [128, 40, (0x8000_0000_0000_0001, 0x0000_FFFF_0000_0003)], 64: [64, 13, (0, 0xF0F0_0000_0000_0003)]}
REPEAT = 3


def ref_group(img, opcode, mask, blk, rep, dst_rep, saturates):
    mem = img.copy()
    isz = img.itemsize
    lanes = 256 // isz
    group = 2 if opcode == "vcpadd" else 32 // isz
    per_repeat = lanes // group
    active = set(lanes_of(mask, lanes))
    dst = img.size // 2
    for r in range(REPEAT):
        for g in range(per_repeat):
            members = [lane for lane in range(g * group, (g + 1) * group)]
            on = [lane for lane in members if lane in active]
            if not on:
                continue                                     # a wholly masked group writes nothing
            values = {lane: img[address(0, r, lane, blk, rep, isz)] for lane in on}
            if opcode in ("vcgadd", "vcpadd"):
                result = pair_tree([values.get(lane, 0) for lane in members], img.dtype, saturates)
            else:
                result = (max if opcode == "vcgmax" else min)(values.values())
            mem[dst + r * dst_rep * per_repeat + g] = result
    return mem


CASES = [(chip, op, dt) for chip in ("Ascend910", "Ascend310", "Ascend910B1") for op in ("vcgadd", "vcgmax", "vcgmin", "vcpadd")
         for dt in sorted(get_chip(chip).isa[op])]


@pytest.mark.parametrize("chip,opcode,dtype", CASES)
@pytest.mark.parametrize("mask_index", [0, 1, 2])
@pytest.mark.parametrize("blk,rep,dst_rep", [(1, 8, 1), (2, 16, 3), (0, 1, 2)])
def test_group_reductions(chip, opcode, dtype, mask_index, blk, rep, dst_rep):
    dtype_lanes = 256 // np.dtype(dtype).itemsize
    out, want = run_reduction(opcode, dtype, MASKS[dtype_lanes][mask_index], blk, rep, dst_rep, REPEAT, chip, RNG,
                              ref_group)
    assert np.array_equal(out, want)


def test_vcgadd_sums_a_block_as_a_pair_tree_not_left_to_right():
    img = np.zeros(8192, dtype=np.float16)
    img[:16] = [2048, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]   # left to right: 2048 (+1 rounds away)
    img[4096:4104] = 7
    out, _ = run_on_ub("vcgadd", img, dict(mask=16, dst=4096, src=0, repeat_times=1, dst_rep_stride=1,
                                           src_blk_stride=1, src_rep_stride=8))
    assert out[4096] == np.float16(2050)                       # the tree adds 1 + 1 first
    assert out[4097:4104].tolist() == [7] * 7                  # blocks 1-7 wholly masked: not written


@pytest.mark.parametrize("dtype", ["float16", "float32"])
@pytest.mark.parametrize("opcode", ["vmadd", "vmaddrelu"])
def test_vmadd_rounds_once(dtype, opcode):
    img = RNG.uniform(-4, 4, 16384 // np.dtype(dtype).itemsize).astype(dtype)
    n = img.size
    dst, s0, s1 = n // 2, 0, n // 4
    strides = {"dst": (1, 8), "src0": (2, 16), "src1": (1, 8)}
    ops = dict(mask=MASKS[256 // img.itemsize][1], dst=dst, src0=s0, src1=s1, repeat_times=REPEAT)
    for name, (blk, rep) in strides.items():
        ops[f"{name}_blk_stride"], ops[f"{name}_rep_stride"] = blk, rep
    out, _ = run_on_ub(opcode, img, ops, chip="Ascend910")

    def fused(a, b, old):
        value = img.dtype.type(np.float64(a) * np.float64(old) + np.float64(b))
        return max(value, img.dtype.type(0)) if opcode == "vmaddrelu" else value
    ref = ref_elementwise(img, fused, dst, [("src0", s0), ("src1", s1)], ops["mask"], REPEAT, strides,
                          dst_reads=True)
    assert np.array_equal(out.view(f"u{img.itemsize}"), ref.view(f"u{img.itemsize}"))
