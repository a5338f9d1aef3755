"""Vector binary / unary / tensor-scalar / ternary instructions against an element-by-element reference."""
import numpy as np
import pytest

from sim_helpers import ref_elementwise, run_on_ub

RNG = np.random.default_rng(1234)


def image(dtype, n=8192, low=-4.0, high=4.0):
    if np.dtype(dtype).kind == "f":
        return RNG.uniform(low, high, n).astype(dtype)
    info = np.iinfo(dtype)
    return RNG.integers(max(info.min, -50000), min(info.max, 50000), n, endpoint=True).astype(dtype)


BINARY = {
    "vadd": np.add, "vsub": np.subtract, "vmul": np.multiply, "vmax": np.maximum, "vmin": np.minimum,
}


def _binary_operands(mask, repeat, d, s0, s1, strides):
    return dict(mask=mask, dst=d, src0=s0, src1=s1, repeat_times=repeat,
                dst_blk_stride=strides["dst"][0], src0_blk_stride=strides["src0"][0],
                src1_blk_stride=strides["src1"][0], dst_rep_stride=strides["dst"][1],
                src0_rep_stride=strides["src0"][1], src1_rep_stride=strides["src1"][1])


@pytest.mark.parametrize("opcode", sorted(BINARY))
@pytest.mark.parametrize("dtype", ["float16", "float32", "int32"])
def test_binary_contiguous_bit_exact(opcode, dtype):
    img = image(dtype)
    lanes = 256 // img.itemsize
    strides = {"dst": (1, 8), "src0": (1, 8), "src1": (1, 8)}
    out, _ = run_on_ub(opcode, img, _binary_operands(lanes, 5, 4096, 0, 2048, strides))
    ref = ref_elementwise(img, BINARY[opcode], 4096, [("src0", 0), ("src1", 2048)], lanes, 5, strides)
    assert np.array_equal(out.view(np.uint8), ref.view(np.uint8))


@pytest.mark.parametrize("mask", [1, 37, 64, 100, 128, (0, 0x8000_0000_0000_0001), (0xF0F0, 0), (3, 1 << 63)])
@pytest.mark.parametrize("strides", [
    {"dst": (1, 8), "src0": (1, 8), "src1": (1, 8)},
    {"dst": (2, 16), "src0": (0, 1), "src1": (3, 0)},      # zero and overlapping source strides
    {"dst": (1, 9), "src0": (2, 4), "src1": (1, 8)},
])
def test_vadd_fp16_masks_and_strides(mask, strides):
    img = image("float16")
    out, _ = run_on_ub("vadd", img, _binary_operands(mask, 3, 4096, 16, 1024, strides))
    ref = ref_elementwise(img, np.add, 4096, [("src0", 16), ("src1", 1024)], mask, 3, strides)
    assert np.array_equal(out.view(np.uint16), ref.view(np.uint16))


def test_vmul_fp32_mask_pair_uses_low_word_only():
    img = image("float32")
    strides = {"dst": (1, 8), "src0": (1, 8), "src1": (1, 8)}
    mask = (0, 0xFFFF_0000_0000_FFFF)
    out, _ = run_on_ub("vmul", img, _binary_operands(mask, 2, 2048, 0, 512, strides))
    ref = ref_elementwise(img, np.multiply, 2048, [("src0", 0), ("src1", 512)], mask, 2, strides)
    assert np.array_equal(out, ref)


def test_inplace_dst_equals_src0():
    img = image("float16")
    strides = {"dst": (1, 8), "src0": (1, 8), "src1": (1, 8)}
    out, _ = run_on_ub("vadd", img, _binary_operands(128, 4, 0, 0, 1024, strides))
    ref = ref_elementwise(img, np.add, 0, [("src0", 0), ("src1", 1024)], 128, 4, strides)
    assert np.array_equal(out.view(np.uint16), ref.view(np.uint16))


def test_dst_overwritten_by_later_repeat_wins():
    img = image("float16")
    strides = {"dst": (1, 0), "src0": (1, 8), "src1": (1, 8)}   # every repeat writes the same 128 elements
    out, _ = run_on_ub("vsub", img, _binary_operands(128, 4, 4096, 0, 1024, strides))
    ref = ref_elementwise(img, np.subtract, 4096, [("src0", 0), ("src1", 1024)], 128, 4, strides)
    assert np.array_equal(out.view(np.uint16), ref.view(np.uint16))


def test_bitwise_int16():
    img = image("int16")
    strides = {"dst": (1, 8), "src0": (1, 8), "src1": (1, 8)}
    for opcode, func in (("vand", np.bitwise_and), ("vor", np.bitwise_or)):
        out, _ = run_on_ub(opcode, img, _binary_operands(77, 2, 4096, 0, 2048, strides))
        assert np.array_equal(out, ref_elementwise(img, func, 4096, [("src0", 0), ("src1", 2048)], 77, 2, strides))


def test_vdiv_fp16_and_fp32_correctly_rounded():
    for dtype in ("float16", "float32"):
        img = image(dtype, low=0.5, high=8.0)
        strides = {"dst": (1, 8), "src0": (1, 8), "src1": (1, 8)}
        out, _ = run_on_ub("vdiv", img, _binary_operands(256 // img.itemsize, 4, 4096, 0, 2048, strides))
        ref = ref_elementwise(img, np.divide, 4096, [("src0", 0), ("src1", 2048)], 256 // img.itemsize, 4, strides)
        assert np.array_equal(out, ref)


UNARY = {
    "vexp": np.exp, "vln": np.log, "vrec": np.reciprocal, "vsqrt": np.sqrt, "vrsqrt": lambda x: 1 / np.sqrt(x),
}


def _unary(mask, repeat, d, s, blk=(1, 1), rep=(8, 8)):
    return dict(mask=mask, dst=d, src=s, repeat_times=repeat, dst_blk_stride=blk[0], src_blk_stride=blk[1],
                dst_rep_stride=rep[0], src_rep_stride=rep[1])


@pytest.mark.parametrize("opcode", sorted(UNARY))
@pytest.mark.parametrize("dtype", ["float16", "float32"])
def test_transcendental_accuracy(opcode, dtype):
    img = image(dtype, low=0.25, high=3.0)
    lanes = 256 // img.itemsize
    out, _ = run_on_ub(opcode, img, _unary(lanes - 3, 6, 4096, 16, rep=(8, 9)))
    strides = {"dst": (1, 8), "src": (1, 9)}
    exact = ref_elementwise(img.astype(np.float64), UNARY[opcode], 4096, [("src", 16)], lanes - 3, 6, strides,
                            lanes=lanes, isz=img.itemsize)
    touched = out != img
    if dtype == "float16":
        np.testing.assert_allclose(out.astype(np.float64), exact.astype(np.float64), rtol=1e-3)
    else:
        ulp = np.abs(np.spacing(exact.astype(np.float32))).astype(np.float64)
        assert np.all(np.abs(out.astype(np.float64) - exact) <= ulp)
    assert touched.sum() > 0


@pytest.mark.parametrize("opcode,func", [("vabs", np.abs), ("vrelu", lambda x: np.maximum(x, 0))])
def test_abs_relu_bit_exact(opcode, func):
    img = image("float16")
    out, _ = run_on_ub(opcode, img, _unary(100, 3, 4096, 0, blk=(2, 1), rep=(16, 8)))
    ref = ref_elementwise(img, func, 4096, [("src", 0)], 100, 3, {"dst": (2, 16), "src": (1, 8)})
    assert np.array_equal(out.view(np.uint16), ref.view(np.uint16))


def test_vnot_int16():
    img = image("int16")
    out, _ = run_on_ub("vnot", img, _unary(128, 2, 4096, 0))
    assert np.array_equal(out, ref_elementwise(img, np.invert, 4096, [("src", 0)], 128, 2,
                                               {"dst": (1, 8), "src": (1, 8)}))


@pytest.mark.parametrize("opcode,func", [("vadds", np.add), ("vmuls", np.multiply), ("vmaxs", np.maximum),
                                         ("vmins", np.minimum)])
@pytest.mark.parametrize("dtype", ["float16", "float32"])
def test_tensor_scalar_rounds_scalar_to_dtype(opcode, func, dtype):
    img = image(dtype)
    scalar = 0.1
    npdt = np.dtype(dtype).type
    operands = dict(mask=50, dst=4096, src=0, scalar=scalar, repeat_times=3, dst_blk_stride=1, src_blk_stride=1,
                    dst_rep_stride=8, src_rep_stride=8)
    out, _ = run_on_ub(opcode, img, operands)
    ref = ref_elementwise(img, lambda x: func(x, npdt(scalar)), 4096, [("src", 0)], 50, 3,
                         {"dst": (1, 8), "src": (1, 8)})
    assert np.array_equal(out, ref)


def test_vaxpy_and_vmla_fused():
    img = image("float32")
    operands = dict(mask=64, dst=4096, src=0, scalar=1.5, repeat_times=2, dst_blk_stride=1, src_blk_stride=1,
                    dst_rep_stride=8, src_rep_stride=8)
    out, _ = run_on_ub("vaxpy", img, operands)
    ref = ref_elementwise(img.astype(np.float64), lambda s, d: s * 1.5 + d, 4096, [("src", 0)], 64, 2,
                         {"dst": (1, 8), "src": (1, 8)}, lanes=64, dst_reads=True, isz=4).astype(np.float32)
    assert np.array_equal(out, ref)
    out, _ = run_on_ub("vmla", img, _binary_operands(64, 2, 4096, 0, 1024, {k: (1, 8) for k in ("dst", "src0",
                                                                                                "src1")}))
    ref = ref_elementwise(img.astype(np.float64), lambda a, b, d: a * b + d, 4096, [("src0", 0), ("src1", 1024)],
                         64, 2, {k: (1, 8) for k in ("dst", "src0", "src1")}, lanes=64,
                         dst_reads=True, isz=4).astype(np.float32)
    assert np.array_equal(out, ref)


def test_int32_add_wraps():
    img = np.zeros(4096, np.int32)
    img[:64] = 2**31 - 1
    img[64:128] = 5
    operands = _binary_operands(64, 1, 1024, 0, 64, {k: (1, 8) for k in ("dst", "src0", "src1")})
    out, _ = run_on_ub("vadd", img, operands)
    assert np.all(out[1024:1088] == np.int32(-(2**31) + 4))


def test_vector_dup_masked_and_strided():
    img = image("float16")
    operands = dict(mask=(0, 0xFF00FF), dst=100 * 16, scalar=2.5, repeat_times=4, dst_blk_stride=2, dst_rep_stride=5)
    out, _ = run_on_ub("vector_dup", img, operands)
    ref = ref_elementwise(img, lambda: np.float16(2.5), 1600, [], (0, 0xFF00FF), 4, {"dst": (2, 5)})
    assert np.array_equal(out.view(np.uint16), ref.view(np.uint16))


def test_runtime_repeat_and_mask_from_scalar_registers():
    from npusim.sim import Device, KernelBuilder
    kb = KernelBuilder("dyn")
    gm = kb.tensor("float16", (2048,), "GM", "gm")
    ub = kb.tensor("float16", (2048,), "UB", "ub")
    rep = kb.scalar("int32", "rep", init_value=3)
    msk = kb.scalar("int32", "msk", init_value=70)
    kb.data_move(ub, gm, 0, 1, 128, 0, 0)
    kb.vadds(msk, ub, ub, 1.0, rep, 1, 1, 8, 8)
    kb.data_move(gm, ub, 0, 1, 128, 0, 0)
    kernel = kb.build()
    dev = Device("Ascend910")
    data = np.zeros(2048, np.float16)
    ptr = dev.to_device(data)
    dev.run(kernel, [ptr])
    out = dev.from_device(ptr, (2048,), np.float16)
    expected = np.zeros(2048, np.float16)
    for r in range(3):
        expected[r * 128:r * 128 + 70] = 1
    assert np.array_equal(out, expected)
