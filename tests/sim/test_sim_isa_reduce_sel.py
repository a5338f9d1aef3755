"""The per-repeat reductions (vcadd, vcmax, vcmin) and vsel for every dtype the chips list, under count and
bit-pair masks and block / repeat strides (zero and overlapping included), against sequential references."""
import numpy as np
import pytest

from npusim.sim import get_chip
from sim_helpers import address, run_reduction, lanes_of, run_on_ub, tree_sum

RNG = np.random.default_rng(21)
MASKS = {128: [128, 77, (0x8000_0000_0000_0001, 0xFFFF_0000_0000_0001)], 64: [64, 13, (0, 0xF0F0_F0F0_0000_0003)]}
SRC_STRIDES = [(1, 8), (2, 16), (0, 1)]
REPEAT = 4


def ref_reduce(img, opcode, mask, blk, rep, dst_rep, saturates):
    mem = img.copy()
    isz = img.itemsize
    lanes = 256 // isz
    active = lanes_of(mask, lanes)
    results = []
    for r in range(REPEAT):
        values = {lane: img[address(0, r, lane, blk, rep, isz)] for lane in active}
        if opcode == "vcadd":
            results.append((tree_sum([values.get(lane, 0) for lane in range(lanes)], img.dtype, saturates),))
        else:
            pick = max if opcode == "vcmax" else min
            best = pick(values.values())
            index = min(lane for lane, v in values.items() if v == best)
            results.append((best, np.array(index, f"u{isz}").view(img.dtype)))
    dst = img.size // 2
    for r, result in enumerate(results):
        for j, value in enumerate(result):
            mem[dst + r * dst_rep * len(result) + j] = value
    return mem


REDUCE_CASES = [(chip, op, dt) for chip in ("Ascend910", "Ascend910B1") for op in ("vcadd", "vcmax", "vcmin")
                for dt in sorted(get_chip(chip).isa[op])]


@pytest.mark.parametrize("chip,opcode,dtype", REDUCE_CASES)
@pytest.mark.parametrize("mask_index", [0, 1, 2])
@pytest.mark.parametrize("blk,rep", SRC_STRIDES)
@pytest.mark.parametrize("dst_rep", [1, 3])
def test_reductions(chip, opcode, dtype, mask_index, blk, rep, dst_rep):
    dtype_lanes = 256 // np.dtype(dtype).itemsize
    out, want = run_reduction(opcode, dtype, MASKS[dtype_lanes][mask_index], blk, rep, dst_rep, REPEAT, chip, RNG,
                              ref_reduce)
    assert np.array_equal(out, want)


VSEL_STRIDES = [{"dst": (1, 8), "src0": (1, 8), "src1": (1, 8)}, {"dst": (2, 16), "src0": (0, 1), "src1": (1, 0)}]


@pytest.mark.parametrize("dtype", ["float16", "float32"])
@pytest.mark.parametrize("mask_index", [0, 1, 2])
@pytest.mark.parametrize("strides", VSEL_STRIDES, ids=["contiguous", "gapped_zero"])
@pytest.mark.parametrize("mode", [0, 2])
def test_vsel_modes_masks_strides(dtype, mask_index, strides, mode):
    img = RNG.standard_normal(16384 // np.dtype(dtype).itemsize).astype(dtype)
    isz, lanes = img.itemsize, 256 // img.itemsize
    mask = MASKS[lanes][mask_index]
    sel_bytes = RNG.integers(0, 256, REPEAT * lanes // 8, dtype=np.uint8)
    sel_at = 15360                                                  # bytes, past every operand below
    img.view(np.uint8)[sel_at:sel_at + sel_bytes.size] = sel_bytes
    dst, s0, s1 = img.size // 2, 0, img.size // 4
    ops = dict(mask=mask, mode=mode, dst=dst, sel=(sel_at, "uint8"), src0=s0, src1=s1, repeat_times=REPEAT)
    for name in ("dst", "src0", "src1"):
        ops[f"{name}_blk_stride"], ops[f"{name}_rep_stride"] = strides[name]
    out, _ = run_on_ub("vsel", img, ops, chip="Ascend910B1")
    bits = np.unpackbits(sel_bytes, bitorder="little").reshape(REPEAT, lanes)
    ref = img.copy()
    for r in range(REPEAT):
        for lane in lanes_of(mask, lanes):
            bit = bits[0 if mode == 0 else r, lane]
            a = img[address(s0, r, lane, *strides["src0"], isz)]
            b = img[address(s1, r, lane, *strides["src1"], isz)]
            ref[address(dst, r, lane, *strides["dst"], isz)] = a if bit else b
    assert np.array_equal(out.view(f"u{isz}"), ref.view(f"u{isz}"))
