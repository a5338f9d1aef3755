"""vconv rounding modes, compare/select, vector_dup and the per-repeat reductions."""
import numpy as np
import pytest

from npusim.errors import UnsupportedDtypeError, InvalidOperandError
from sim_helpers import address, lanes_of, run_on_ub

RNG = np.random.default_rng(7)


def conv_ref(img_bytes, src_dt, dst_dt, func, dst, src, mask, repeat, blk=(1, 1), rep=(8, 8)):
    """Sequential vconv reference on a byte image: each operand addressed with its own itemsize."""
    src_view = img_bytes.view(src_dt).copy()
    out = img_bytes.copy()
    dst_view = out.view(dst_dt)
    lanes = 256 // max(np.dtype(src_dt).itemsize, np.dtype(dst_dt).itemsize)
    for r in range(repeat):
        for lane in lanes_of(mask, lanes):
            s = address(src, r, lane, blk[1], rep[1], np.dtype(src_dt).itemsize)
            d = address(dst, r, lane, blk[0], rep[0], np.dtype(dst_dt).itemsize)
            dst_view[d] = func(src_view[s])
    return out


def _conv(mode, dst, src, repeat, mask, rep=(8, 8), deqscale=None):
    ops = dict(mask=mask, round_mode=mode, dst=dst, src=src, repeat_times=repeat, dst_blk_stride=1,
               src_blk_stride=1, dst_rep_stride=rep[0], src_rep_stride=rep[1])
    if deqscale is not None:
        ops["deqscale"] = deqscale
    return ops


def test_f16_to_f32_exact_with_wider_lanes():
    img = np.zeros(32768, np.uint8)
    img[:4096] = RNG.integers(0, 256, 4096, dtype=np.uint8)
    img.view(np.float16)[:2048] = RNG.standard_normal(2048).astype(np.float16)
    out, _ = run_on_ub("vconv", img, _conv("", (2048, "float32"), (0, "float16"), 3, 64, rep=(8, 4)))
    ref = conv_ref(img, np.float16, np.float32, np.float32, 2048, 0, 64, 3, rep=(8, 4))
    assert np.array_equal(out, ref)


DOC_CASES = {  # TIK vec_conv documentation: f32 0.5 + 2**-12 -> f16 per rounding mode
    "round": 0.5, "floor": 0.5, "ceil": 0.5 + 2**-11, "away-zero": 0.5 + 2**-11, "to-zero": 0.5,
    "odd": 0.5 + 2**-11,
}


@pytest.mark.parametrize("mode", sorted(DOC_CASES))
def test_f32_to_f16_documented_rounding(mode):
    img = np.zeros(32768, np.uint8)
    img.view(np.float32)[:64] = np.float32(0.5 + 2**-12)
    img.view(np.float32)[1:64:2] = -np.float32(0.5 + 2**-12)
    chip = "Ascend910B1" if mode not in ("round", "odd") else "Ascend910"
    if mode == "round":
        mode_arg = ""
    else:
        mode_arg = mode
    out, _ = run_on_ub("vconv", img, _conv(mode_arg, (4096, "float16"), (0, "float32"), 1, 64, rep=(4, 8)),
                       chip=chip)
    got = out.view(np.float16)[4096:4160]
    assert got[0] == np.float16(DOC_CASES[mode])
    negative = {"floor": -(0.5 + 2**-11), "ceil": -0.5}.get(mode, -DOC_CASES[mode])
    assert got[1] == np.float16(negative)


def test_f32_to_f16_modes_bracket_and_saturate():
    values = np.concatenate([RNG.standard_normal(60).astype(np.float32) * 1000,
                             np.array([1e6, -1e6, 65519.0, 2**-30], np.float32)])
    img = np.zeros(32768, np.uint8)
    img.view(np.float32)[:64] = values
    results = {}
    for mode in ("f", "c", "z", "r", "a"):
        out, _ = run_on_ub("vconv", img, _conv(mode, (4096, "float16"), (0, "float32"), 1, 64, rep=(4, 8)),
                           chip="Ascend910B1")
        results[mode] = out.view(np.float16)[4096:4160].astype(np.float64)
    x = values.astype(np.float64)
    finite = np.abs(x) < 65504
    assert np.all(results["f"][finite] <= x[finite]) and np.all(results["c"][finite] >= x[finite])
    assert np.all(np.abs(results["z"]) <= np.abs(x))
    assert np.array_equal(results["r"][finite], x[finite].astype(np.float16).astype(np.float64))
    assert results["f"][60] == 65504 and results["c"][61] == -65504 and results["r"][62] == 65504
    assert results["c"][63] > 0 and results["f"][63] == 0


@pytest.mark.parametrize("mode,expected", [("round", [2, -2, 4, -4]), ("away-zero", [3, -3, 4, -4]),
                                           ("floor", [2, -3, 3, -4]), ("ceil", [3, -2, 4, -3]),
                                           ("to-zero", [2, -2, 3, -3])])
def test_f16_to_s32_rounding(mode, expected):
    img = np.zeros(32768, np.uint8)
    img.view(np.float16)[:4] = [2.5, -2.5, 3.5, -3.5]
    out, _ = run_on_ub("vconv", img, _conv(mode, (2048, "int32"), (0, "float16"), 1, 64, rep=(8, 4)))
    assert out.view(np.int32)[2048:2052].tolist() == expected


def test_f32_to_s32_saturates_and_nan_is_zero():
    img = np.zeros(32768, np.uint8)
    img.view(np.float32)[:4] = [3e9, -3e9, np.nan, 7.7]
    out, _ = run_on_ub("vconv", img, _conv("z", (2048, "int32"), (0, "float32"), 1, 64))
    assert out.view(np.int32)[2048:2052].tolist() == [2**31 - 1, -(2**31), 0, 7]


def test_u8_to_f16_uses_four_source_blocks_per_repeat():
    img = np.zeros(32768, np.uint8)
    img[:1024] = RNG.integers(0, 256, 1024, dtype=np.uint8)
    out, _ = run_on_ub("vconv", img, _conv("", (4096, "float16"), (0, "uint8"), 3, 128, rep=(8, 4)))
    ref = conv_ref(img, np.uint8, np.float16, np.float16, 4096, 0, 128, 3, rep=(8, 4))
    assert np.array_equal(out, ref)


def test_deq_s32_to_f16():
    img = np.zeros(32768, np.uint8)
    img.view(np.int32)[:64] = np.arange(-32, 32) * 1000
    out, _ = run_on_ub("vconv", img, _conv("", (4096, "float16"), (0, "int32"), 1, 64, rep=(4, 8),
                                           deqscale=0.5))
    assert np.array_equal(out.view(np.float16)[4096:4160], (np.arange(-32, 32) * 500.0).astype(np.float16))


def test_conversion_missing_on_chip_is_rejected():
    img = np.zeros(32768, np.uint8)
    with pytest.raises(UnsupportedDtypeError, match="f322s32r"):
        run_on_ub("vconv", img, _conv("round", (2048, "int32"), (0, "float32"), 1, 64), chip="Ascend310")


@pytest.mark.parametrize("cmp_op,func", [("lt", np.less), ("ge", np.greater_equal), ("eq", np.equal),
                                         ("ne", np.not_equal)])
def test_vcmpv_bits(cmp_op, func):
    img = RNG.integers(-3, 3, 16384).astype(np.float16)
    ops = dict(cmp_op=cmp_op, dst=(8192, "uint8"), src0=0, src1=1024, repeat_times=3, src0_blk_stride=1,
               src1_blk_stride=2, src0_rep_stride=8, src1_rep_stride=16)
    out, _ = run_on_ub("vcmpv", img, ops)
    bits = out.view(np.uint8)[8192:8192 + 48]
    for r in range(3):
        for lane in range(128):
            a = img[address(0, r, lane, 1, 8, 2)]
            b = img[address(1024, r, lane, 2, 16, 2)]
            assert bool((bits[r * 16 + lane // 8] >> (lane % 8)) & 1) == bool(func(a, b))


def test_vcmp_cmpmask_then_vsel_mode0():
    img = RNG.standard_normal(16384).astype(np.float16)

    def select(kb, ub):
        view = ub.reinterpret_cast_to("float16")
        kb.vsel(128, 0, view[4096], "CMPMASK", view[0], view[1024], 2, 1, 1, 1, 8, 8, 8)

    ops = dict(mask=100, cmp_op="gt", src0=0, src1=1024)
    out, _ = run_on_ub("vcmp", img, ops, extra=select)
    for r in range(2):
        for lane in range(128):
            a, b = img[r * 128 + lane], img[1024 + r * 128 + lane]
            bit = lane < 100 and img[lane] > img[1024 + lane]
            assert out[4096 + r * 128 + lane] == (a if bit else b)


def test_vsel_mode2_consumes_bits_per_repeat_on_910b():
    img = RNG.standard_normal(16384).astype(np.float16)
    sel_bytes = RNG.integers(0, 256, 32, dtype=np.uint8)
    img.view(np.uint8)[16384:16416] = sel_bytes
    ops = dict(mask=128, mode=2, dst=4096, sel=(16384, "uint8"), src0=0, src1=1024, repeat_times=2,
               dst_blk_stride=1, src0_blk_stride=1, src1_blk_stride=1, dst_rep_stride=8, src0_rep_stride=8,
               src1_rep_stride=8)
    out, _ = run_on_ub("vsel", img, ops, chip="Ascend910B1")
    bits = np.unpackbits(sel_bytes, bitorder="little").astype(bool)
    expected = np.where(bits, img[:256], img[1024:1280])
    assert np.array_equal(out[4096:4352], expected)
    with pytest.raises(InvalidOperandError, match="mode 2 is not supported on Ascend910"):
        run_on_ub("vsel", img, ops, chip="Ascend910")


def tree_sum_f16(values):
    level = [np.float16(v) for v in values]
    while len(level) > 1:
        nxt = []
        for i in range(0, len(level), 2):
            s = np.float16(level[i] + level[i + 1])
            if np.isinf(s) and np.isfinite(level[i]) and np.isfinite(level[i + 1]):
                s = np.float16(65504 if s > 0 else -65504)
            nxt.append(s)
        level = nxt
    return level[0]


def test_vcadd_pairwise_tree_with_saturation_and_mask():
    img = RNG.uniform(-10, 10, 16384).astype(np.float16)
    img[:4] = [60000, 60000, -30000, 100]
    img[4:128] = 0
    ops = dict(mask=120, dst=8192, src=0, repeat_times=5, dst_rep_stride=1, src_blk_stride=1, src_rep_stride=8)
    out, _ = run_on_ub("vcadd", img, ops)
    # CANN's example: 60000 + 60000 saturates to 65504; -30000 + 100 = -29900 (-29904 in fp16); 65504 - 29904
    assert out[8192] == np.float16(35600)
    for r in range(1, 5):
        values = [img[r * 128 + lane] if lane < 120 else 0 for lane in range(128)]
        assert out[8192 + r] == tree_sum_f16(values)
    assert np.array_equal(out[8197:8300], img[8197:8300])


def test_vcmax_vcmin_value_and_index():
    img = RNG.standard_normal(16384).astype(np.float16)
    for opcode, pick in (("vcmax", np.argmax), ("vcmin", np.argmin)):
        ops = dict(mask=(0, (1 << 64) - 1), dst=8192, src=0, repeat_times=3, dst_rep_stride=1, src_blk_stride=1,
                   src_rep_stride=8)
        out, _ = run_on_ub(opcode, img, ops)
        for r in range(3):
            lanes = img[r * 128:r * 128 + 64]
            assert out[8192 + 2 * r] == lanes[pick(lanes)]
            assert out[8192 + 2 * r + 1:8192 + 2 * r + 2].view(np.uint16)[0] == pick(lanes)


def test_vcadd_fp32():
    img = RNG.standard_normal(8192).astype(np.float32)
    ops = dict(mask=64, dst=4096, src=0, repeat_times=2, dst_rep_stride=2, src_blk_stride=1, src_rep_stride=8)
    out, _ = run_on_ub("vcadd", img, ops)
    for r in range(2):
        level = list(img[r * 64:(r + 1) * 64])
        while len(level) > 1:
            level = [np.float32(level[i] + level[i + 1]) for i in range(0, len(level), 2)]
        assert out[4096 + 2 * r] == level[0]


def test_vsel_mode1_scalar_src1_and_vcmpv_fp32():
    img = RNG.standard_normal(8192).astype(np.float32)
    img.view(np.uint8)[16384:16392] = 0b10101010
    ops = dict(mask=64, mode=1, dst=2048, sel=(16384, "uint8"), src0=0, src1=-7.0, repeat_times=1,
               dst_blk_stride=1, src0_blk_stride=1, src1_blk_stride=1, dst_rep_stride=8, src0_rep_stride=8,
               src1_rep_stride=8)
    out, _ = run_on_ub("vsel", img, ops, chip="Ascend310P3")
    expected = np.where(np.arange(64) % 2 == 1, img[:64], np.float32(-7.0))
    assert np.array_equal(out[2048:2112], expected)
    ops = dict(cmp_op="le", dst=(16384, "uint8"), src0=0, src1=64, repeat_times=2, src0_blk_stride=1,
               src1_blk_stride=1, src0_rep_stride=8, src1_rep_stride=8)
    out, _ = run_on_ub("vcmpv", img, ops)
    bits = np.unpackbits(out.view(np.uint8)[16384:16400], bitorder="little").astype(bool)
    expected = np.concatenate([img[:64] <= img[64:128], img[64:128] <= img[128:192]])
    assert np.array_equal(bits, expected)
