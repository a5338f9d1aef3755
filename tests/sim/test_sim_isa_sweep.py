"""Every vector instruction of the issue's list, for every dtype the chip supports, under count masks and bit-pair
masks, contiguous / zero / overlapping / gapped block and repeat strides, against the element-by-element reference
of sim_helpers: bit-exact for arithmetic, moves and dup; 1 ulp (fp32) / 1e-3 relative (fp16) for the
transcendentals.  Also tails: lengths that do not fill the last repeat, as real kernels process them."""
import numpy as np
import pytest

from npusim.errors import OverlapError
from npusim.sim import Device, KernelBuilder, get_chip, set_chip
from sim_helpers import address, lanes_of, ref_elementwise, run_on_ub

RNG = np.random.default_rng(99)
IMAGE_BYTES = 16384
CHIP = get_chip("Ascend910")

MASKS = {
    128: [1, 100, 128, (0x8000_0000_0000_0001, 0x1), (0xF0F0, 0), ((1 << 64) - 1, (1 << 64) - 1)],
    64: [1, 37, 64, (0, 0x8000_0000_0000_0001), (0, 0x00FF_F0F0_0000_FFFF)],
}
STRIDES = {  # operand -> (blk_stride, rep_stride), in 32-byte blocks
    "contiguous": {"dst": (1, 8), "src0": (1, 8), "src1": (1, 8)},
    "zero_and_overlapping_src": {"dst": (1, 8), "src0": (0, 1), "src1": (1, 0)},
    "gapped": {"dst": (2, 16), "src0": (3, 24), "src1": (1, 9)},
    "overlapping_dst": {"dst": (1, 4), "src0": (1, 8), "src1": (2, 8)},    # later repeats overwrite: last wins
}
REPEAT = 3


def image(dtype, low=-4.0, high=4.0):
    n = IMAGE_BYTES // np.dtype(dtype).itemsize
    if np.dtype(dtype).kind == "f":
        return RNG.uniform(low, high, n).astype(dtype)
    info = np.iinfo(dtype)
    return RNG.integers(max(info.min, -50000), min(info.max, 50000), n, endpoint=True).astype(dtype)


def places(img):
    """Element offsets of dst, src0, src1 in the image: far enough apart that no pattern above overlaps."""
    n = img.size
    return n // 2, 0, n // 4


def operands(mask, strides, names, dst, srcs, extra=None):
    ops = dict(mask=mask, dst=dst, repeat_times=REPEAT, **(extra or {}))
    for name, start in zip(names, srcs):
        ops[name] = start
    for name in ("dst",) + tuple(names):
        key = "dst" if name == "dst" else ("src0" if name in ("src", "src0") else "src1")
        ops[f"{name}_blk_stride"], ops[f"{name}_rep_stride"] = strides[key]
    return ops


def ref_strides(strides, names):
    return {name: strides["dst" if name == "dst" else ("src0" if name in ("src", "src0") else "src1")]
            for name in ("dst",) + tuple(names)}


def cases(opcodes):
    return [(op, dt, m, s) for op in opcodes for dt in sorted(CHIP.isa[op])
            for m in range(len(MASKS[256 // np.dtype(dt).itemsize])) for s in sorted(STRIDES)]


def _bits(array):
    return array.view(f"u{array.itemsize}")


def rereads_dst(mask, isz, blk, rep):
    """Whether a later repeat touches a dst element an earlier repeat wrote (illegal for vaxpy / vmla, which
    read dst)."""
    seen = {}
    for r in range(REPEAT):
        for lane in lanes_of(mask, 256 // isz):
            first = seen.setdefault(address(0, r, lane, blk, rep, isz), r)
            if first != r:
                return True
    return False


BINARY = {"vadd": np.add, "vsub": np.subtract, "vmul": np.multiply, "vmax": np.maximum, "vmin": np.minimum,
          "vdiv": np.divide, "vand": np.bitwise_and, "vor": np.bitwise_or}


@pytest.mark.parametrize("opcode,dtype,mask_index,stride_name", cases(sorted(BINARY)))
def test_binary_bit_exact(opcode, dtype, mask_index, stride_name):
    img = image(dtype, 0.5, 4.0) if opcode == "vdiv" else image(dtype)
    mask = MASKS[256 // img.itemsize][mask_index]
    dst, s0, s1 = places(img)
    strides = STRIDES[stride_name]
    out, _ = run_on_ub(opcode, img, operands(mask, strides, ("src0", "src1"), dst, (s0, s1)))
    with np.errstate(over="ignore"):
        ref = ref_elementwise(img, BINARY[opcode], dst, [("src0", s0), ("src1", s1)], mask, REPEAT,
                              ref_strides(strides, ("src0", "src1")))
    assert np.array_equal(_bits(out), _bits(ref))


EXACT_UNARY = {"vabs": np.abs, "vrelu": lambda x: np.maximum(x, x.dtype.type(0)), "vnot": np.invert}
APPROX_UNARY = {"vexp": np.exp, "vln": np.log, "vrec": lambda x: 1.0 / x, "vsqrt": np.sqrt,
                "vrsqrt": lambda x: 1.0 / np.sqrt(x)}


@pytest.mark.parametrize("opcode,dtype,mask_index,stride_name", cases(sorted(EXACT_UNARY) + sorted(APPROX_UNARY)))
def test_unary(opcode, dtype, mask_index, stride_name):
    exact = opcode in EXACT_UNARY
    img = image(dtype) if exact else image(dtype, 0.05, 6.0)
    mask = MASKS[256 // img.itemsize][mask_index]
    dst, src, _ = places(img)
    strides = STRIDES[stride_name]
    out, _ = run_on_ub(opcode, img, operands(mask, strides, ("src",), dst, (src,)))
    if exact:
        ref = ref_elementwise(img, EXACT_UNARY[opcode], dst, [("src", src)], mask, REPEAT,
                              ref_strides(strides, ("src",)))
        assert np.array_equal(_bits(out), _bits(ref))
        return
    ref = ref_elementwise(img.astype(np.float64), APPROX_UNARY[opcode], dst, [("src", src)], mask, REPEAT,
                          ref_strides(strides, ("src",)), isz=img.itemsize)
    written = ref != img.astype(np.float64)
    assert written.sum() > 0 and np.array_equal(out[~written], img[~written])
    got, want = out[written].astype(np.float64), ref[written]
    if dtype == "float16":
        assert np.all(np.abs(got - want) <= 1e-3 * np.abs(want))
    else:
        assert np.all(np.abs(got - want) <= np.spacing(np.abs(want).astype(np.float32)))


SCALAR_OPS = {"vadds": np.add, "vmuls": np.multiply, "vmaxs": np.maximum, "vmins": np.minimum}


@pytest.mark.parametrize("opcode,dtype,mask_index,stride_name", cases(sorted(SCALAR_OPS) + ["vaxpy"]))
def test_tensor_scalar_and_vaxpy_bit_exact(opcode, dtype, mask_index, stride_name):
    img = image(dtype)
    mask = MASKS[256 // img.itemsize][mask_index]
    dst, src, _ = places(img)
    strides = STRIDES[stride_name]
    scalar = 0.3
    s = img.dtype.type(scalar)                              # the scalar register holds the tensors' dtype
    ops = operands(mask, strides, ("src",), dst, (src,), {"scalar": scalar})
    if opcode == "vaxpy" and rereads_dst(mask, img.itemsize, *strides["dst"]):
        with pytest.raises(OverlapError, match="dst is also read"):
            run_on_ub(opcode, img, ops)
        return
    out, _ = run_on_ub(opcode, img, ops)
    if opcode == "vaxpy":                                   # dst = scalar * src + dst, rounded once
        ref = ref_elementwise(img.astype(np.float64), lambda x, d: float(s) * x + d, dst, [("src", src)], mask,
                              REPEAT, ref_strides(strides, ("src",)), dst_reads=True, isz=img.itemsize)
        ref = ref.astype(img.dtype)
    else:
        ref = ref_elementwise(img, lambda x: SCALAR_OPS[opcode](x, s), dst, [("src", src)], mask, REPEAT,
                              ref_strides(strides, ("src",)))
    assert np.array_equal(_bits(out), _bits(ref))


@pytest.mark.parametrize("dtype", sorted(CHIP.isa["vmla"]))
@pytest.mark.parametrize("stride_name", sorted(STRIDES))
def test_vmla_rounds_once(dtype, stride_name):
    img = image(dtype)
    mask = MASKS[256 // img.itemsize][1]
    dst, s0, s1 = places(img)
    strides = STRIDES[stride_name]
    ops = operands(mask, strides, ("src0", "src1"), dst, (s0, s1))
    if rereads_dst(mask, img.itemsize, *strides["dst"]):
        with pytest.raises(OverlapError, match="dst is also read"):
            run_on_ub("vmla", img, ops)
        return
    out, _ = run_on_ub("vmla", img, ops)
    ref = ref_elementwise(img.astype(np.float64), lambda a, b, d: a * b + d, dst, [("src0", s0), ("src1", s1)],
                          mask, REPEAT, ref_strides(strides, ("src0", "src1")), dst_reads=True, isz=img.itemsize)
    assert np.array_equal(_bits(out), _bits(ref.astype(img.dtype)))


@pytest.mark.parametrize("dtype", sorted(CHIP.isa["vector_dup"]))
@pytest.mark.parametrize("mask_index", [0, 1, 3])
@pytest.mark.parametrize("blk,rep", [(1, 8), (0, 1), (2, 5), (1, 0)])
def test_vector_dup_every_dtype(dtype, mask_index, blk, rep):
    img = image(dtype)
    mask = MASKS[256 // img.itemsize][mask_index]
    value = -3 if img.dtype.kind in "iu" and img.dtype.kind != "u" else 7
    dst = img.size // 2
    ops = dict(mask=mask, dst=dst, scalar=value, repeat_times=REPEAT, dst_blk_stride=blk, dst_rep_stride=rep)
    out, _ = run_on_ub("vector_dup", img, ops)
    ref = ref_elementwise(img, lambda: img.dtype.type(value), dst, [], mask, REPEAT, {"dst": (blk, rep)})
    assert np.array_equal(_bits(out), _bits(ref))


def _tail_kernel(opcode, dtype, n, chip):
    """z = op(x, y) over n elements: full repeats with a full mask, then one repeat masked to the tail."""
    isz = np.dtype(dtype).itemsize
    lanes, blocks = 256 // isz, -(-n * isz // 32)
    padded = -(-n // lanes) * lanes
    kb = KernelBuilder(f"tail_{opcode}_{n}")
    x, y, z = (kb.tensor(dtype, (n,), "GM", name) for name in "xyz")
    a, b = (kb.tensor(dtype, (padded,), "UB", name) for name in "ab")
    kb.data_move(a, x, 0, 1, blocks, 0, 0)
    kb.data_move(b, y, 0, 1, blocks, 0, 0)
    full, tail = divmod(n, lanes)
    for start in range(0, full, chip.max_repeat):
        kb.emit(opcode, lanes, a[start * lanes], a[start * lanes], b[start * lanes], min(full - start, 255),
                1, 1, 1, 8, 8, 8)
    if tail:
        kb.emit(opcode, tail, a[full * lanes], a[full * lanes], b[full * lanes], 1, 1, 1, 1, 8, 8, 8)
    kb.data_move(z, a, 0, 1, blocks, 0, 0)
    set_chip(chip.name)
    try:
        return kb.build(inputs=[x, y], outputs=[z])
    finally:
        set_chip(None)


@pytest.mark.parametrize("opcode,func", [("vadd", np.add), ("vmul", np.multiply), ("vmax", np.maximum)])
@pytest.mark.parametrize("dtype", ["float16", "float32", "int32"])
@pytest.mark.parametrize("n", [1, 7, 100, 1000, 64 * 255 + 65])
def test_tails(opcode, func, dtype, n):
    x = np.resize(image(dtype), n)
    y = np.resize(image(dtype)[::-1], n)
    kernel = _tail_kernel(opcode, dtype, n, CHIP)
    dev = Device(CHIP)
    px, py, pz = dev.to_device(x), dev.to_device(y), dev.malloc(x.nbytes)
    dev.run(kernel, [px, py, pz])
    with np.errstate(over="ignore"):
        expected = func(x, y)
    assert np.array_equal(_bits(dev.from_device(pz, (n,), dtype)), _bits(expected))
