"""vnchwconv (8-, 16- and 32-bit, block halves, repeats with strides, the repeat_times == 1 stride quirk, repeats
reading what earlier ones wrote) and vtranspose, against element-by-element references written from CANN's
scatter_vnchwconv pseudo-code, and their run-time checks."""
import numpy as np
import pytest

from npusim.errors.sim import AlignmentError, InvalidOperandError, OutOfBoundsError, OverlapError
from npusim.sim import Device, KernelBuilder, get_chip

RNG = np.random.default_rng(7)
UB_BYTES = 32768


def run_ub(image: np.ndarray, emit, chip="Ascend910"):
    """Run ``emit(kb, view)`` on a UB holding ``image`` (bytes in / out through GM); ``view(dtype)`` gives the UB
    as a tensor of that dtype.  Returns (UB image after, run record)."""
    kb = KernelBuilder("t_transpose")
    nbytes = image.nbytes
    gm = kb.tensor("uint8", (nbytes,), "GM", "mem")
    ub = kb.tensor("uint8", (nbytes,), "UB", "ub")
    kb.data_move(ub, gm, 0, 1, nbytes // 32, 0, 0)
    emit(kb, ub.reinterpret_cast_to)
    kb.data_move(gm, ub, 0, 1, nbytes // 32, 0, 0)
    kernel = kb.build(inputs=[gm], outputs=[], check=False)
    device = Device(get_chip(chip))
    ptr = device.to_device(image)
    record = device.run(kernel, [ptr])
    return device.from_device(ptr, image.shape, image.dtype), record


def ref_vnchwconv(mem, dst_heads, src_heads, repeat, dst_stride, src_stride, dst_high=False, src_high=False):
    """Sequential reference (CANN scatter_vnchwconv pseudo-code), heads in elements of mem's dtype."""
    mem = mem.copy()
    isz = mem.itemsize
    per_block = 32 // isz
    steps = [1] if repeat == 1 else range(repeat)
    for r in steps:
        dst = [h + r * dst_stride * per_block for h in dst_heads]
        src = [h + r * src_stride * per_block for h in src_heads]
        rows = [mem[s:s + per_block].copy() for s in src]
        if isz == 2:
            for e in range(16):
                for k in range(16):
                    mem[dst[e] + k] = rows[k][e]
        elif isz == 4:
            for e in range(0, 16, 2):
                for k in range(8):
                    mem[dst[e] + k] = rows[k][e // 2]
                    mem[dst[e + 1] + k] = rows[k + 8][e // 2]
        else:
            for e in range(16):
                for k in range(16):
                    mem[dst[e] + k + 16 * dst_high] = rows[k][e + 16 * src_high]
    return mem


def _image(dtype):
    if np.dtype(dtype).kind == "f":
        return RNG.standard_normal(UB_BYTES // np.dtype(dtype).itemsize).astype(dtype)
    info = np.iinfo(dtype)
    return RNG.integers(info.min, info.max, UB_BYTES // np.dtype(dtype).itemsize, dtype=dtype, endpoint=True)


def _emit_vnchwconv(dtype, dst_heads, src_heads, repeat, dst_stride, src_stride, dst_high=False, src_high=False):
    def emit(kb, view):
        t = view(dtype)
        kb.vnchwconv(dst_high, src_high, [t[h] for h in dst_heads], [t[h] for h in src_heads], repeat, dst_stride,
                     src_stride)
    return emit


CASES = [("float16", 1, 0, 0), ("int16", 3, 1, 16), ("uint16", 2, 16, 1), ("float32", 1, 0, 0),
         ("int32", 4, 2, 16), ("uint32", 2, 16, 2), ("int8", 1, 0, 0), ("uint8", 3, 2, 16),
         ("float16", 1, 2, 3), ("int8", 1, 1, 2)]          # repeat_times 1 still applies the strides once


@pytest.mark.parametrize("chip", ["Ascend910", "Ascend310"])
@pytest.mark.parametrize("dtype,repeat,dst_stride,src_stride", CASES)
def test_vnchwconv_matches_the_pseudo_code(chip, dtype, repeat, dst_stride, src_stride):
    img = _image(dtype)
    per_block = 32 // img.itemsize
    src_heads = [i * per_block * 3 for i in range(16)]                      # scattered source blocks
    dst_heads = [img.size // 2 + i * per_block for i in range(16)]          # contiguous destination blocks
    out, record = run_ub(img, _emit_vnchwconv(dtype, dst_heads, src_heads, repeat, dst_stride, src_stride), chip)
    ref = ref_vnchwconv(img, dst_heads, src_heads, repeat, dst_stride, src_stride)
    assert np.array_equal(out.view(np.uint8), ref.view(np.uint8))
    assert record.cost.total_cycles > 0


@pytest.mark.parametrize("dst_high,src_high", [(False, True), (True, False), (True, True)])
def test_vnchwconv_8bit_halves_keep_the_other_half(dst_high, src_high):
    img = _image("int8")
    src_heads = [i * 64 for i in range(16)]
    dst_heads = [UB_BYTES // 2 + i * 32 for i in range(16)]
    out, _ = run_ub(img, _emit_vnchwconv("int8", dst_heads, src_heads, 2, 16, 16, dst_high, src_high))
    ref = ref_vnchwconv(img, dst_heads, src_heads, 2, 16, 16, dst_high, src_high)
    assert np.array_equal(out, ref)


def test_vnchwconv_in_place_and_chained_repeats_run_in_order():
    img = _image("float16")
    heads = [i * 16 for i in range(16)]
    out, _ = run_ub(img, _emit_vnchwconv("float16", heads, heads, 1, 0, 0))       # in place: a 16 x 16 transpose
    ref = img.copy()
    ref[:256] = img[:256].reshape(16, 16).T.reshape(-1)
    assert np.array_equal(out.view(np.uint16), ref.view(np.uint16))
    # repeat r + 1 reads the blocks repeat r wrote (dst stride 0 and src stride 0 on the same blocks)
    out, _ = run_ub(img, _emit_vnchwconv("float16", heads, heads, 3, 0, 0))
    ref = ref_vnchwconv(img, heads, heads, 3, 0, 0)
    assert np.array_equal(out.view(np.uint16), ref.view(np.uint16))
    assert np.array_equal(out[:256].view(np.uint16), img[:256].reshape(16, 16).T.reshape(-1).view(np.uint16))


def test_vnchwconv_runtime_checks():
    img = _image("float16")

    def misaligned(kb, view):
        t = view("float16")
        kb.vnchwconv(False, False, [t[i * 16 + 1] for i in range(16)], [t[i * 16] for i in range(16)], 1, 0, 0)
    with pytest.raises(AlignmentError, match="dst_list\\[0\\]"):
        run_ub(img, misaligned)
    with pytest.raises(OutOfBoundsError, match="src_list\\[15\\]"):
        run_ub(img, _emit_vnchwconv("float16", [i * 16 for i in range(16)],
                                    [img.size - 16 * (16 - i) for i in range(16)], 2, 1, 1))

    def fifteen(kb, view):
        t = view("float16")
        kb.vnchwconv(False, False, [t[i * 16] for i in range(15)], [t[i * 16] for i in range(16)], 1, 0, 0)
    with pytest.raises(InvalidOperandError, match="there should be 16 addresses in dst_list"):
        run_ub(img, fifteen)


@pytest.mark.parametrize("dtype,per_repeat", [("float16", 24), ("int8", 46)])
def test_vnchwconv_cost_follows_the_chip_rows(dtype, per_repeat):
    """Each further repeat holds the vector pipe per_repeat_cycles (PTO-ISA's vnchwconv b16 / b8 profiles)."""
    def cycles(repeat):
        kb = KernelBuilder("t_cost")
        ub = kb.tensor(dtype, (UB_BYTES // np.dtype(dtype).itemsize,), "UB", "ub")
        per_block = 32 // np.dtype(dtype).itemsize
        kb.vnchwconv(False, False, [ub[UB_BYTES // 4 + i * per_block] for i in range(16)],
                     [ub[i * per_block] for i in range(16)], repeat, 16, 16)
        return Device(get_chip("Ascend910")).run(kb.build(check=False), []).cost.total_cycles
    assert get_chip("Ascend910").vector_costs["vnchwconv"].per_repeat(dtype) == per_repeat
    assert cycles(5) - cycles(2) == pytest.approx(3 * per_repeat)


def test_vtranspose_and_its_overlap_rule():
    img = _image("uint16")

    def emit(kb, view):
        t = view("uint16")
        kb.vtranspose(t[4096], t[16])
        kb.vtranspose(t[16], t[16])
    out, _ = run_ub(img, emit)
    ref = img.copy()
    ref[4096:4352] = img[16:272].reshape(16, 16).T.reshape(-1)
    ref[16:272] = img[16:272].reshape(16, 16).T.reshape(-1)
    assert np.array_equal(out, ref)

    def partial(kb, view):
        t = view("float16")
        kb.vtranspose(t[32], t[0])
    with pytest.raises(OverlapError, match="vtranspose not support partially address overlapping"):
        run_ub(img, partial)


def test_footprints_cover_every_listed_block_and_the_repeat_1_stride():
    """The cycle model's dependence question sees all 16 + 16 operands of vnchwconv (the lists are tuples) and
    the 512 bytes of vtranspose."""
    from npusim.sim.cost.footprint import Footprints
    kb = KernelBuilder("t_footprint")
    ub = kb.tensor("float16", (8192,), "UB", "ub")
    kb.vnchwconv(False, False, [ub[4096 + 16 * i] for i in range(16)], [ub[512 * i] for i in range(16)], 1, 3, 2)
    kb.vtranspose(ub[0], ub[256])
    kernel = kb.build(check=False)
    reads, writes = Footprints(kernel, get_chip("Ascend910")).regions(0)
    assert sorted(lo for _, lo, _ in writes) == [(4096 + 16 * i) * 2 for i in range(16)]
    assert all(hi - lo == 4 * 32 for _, lo, hi in writes)          # the start block plus the one 3 blocks on
    assert sorted(lo for _, lo, _ in reads) == [512 * i * 2 for i in range(16)]
    reads, writes = Footprints(kernel, get_chip("Ascend910")).regions(1)
    assert [(lo, hi) for _, lo, hi in writes] == [(0, 512)] and [(lo, hi) for _, lo, hi in reads] == [(512, 1024)]
