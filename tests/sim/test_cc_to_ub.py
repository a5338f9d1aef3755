"""copy_matrix_cc_to_ubuf (npusim/sim/isa/cc_to_ub.py): the converting L0C -> UB move of Ascend910 / 310 / 310P3.
Every form against numpy, bursts with gaps, bit-identity with data_move + vconv (+ vrelu / vmaxs), the cost row
(L0C->UB on pipe V, priced as the data_move of the same L0C bytes), lockstep batches and the typed errors."""
import numpy as np
import pytest

from npusim.errors.sim import (AlignmentError, InvalidOperandError, OutOfBoundsError, SimulatorError,
                               UnsupportedDtypeError)
from npusim.sim import Device, KernelBuilder, get_chip
from npusim.sim.isa import ISA, cc_to_ub
from npusim.sim.isa.saturate import saturating
from sim_helpers import pack_a, pack_b, same_as_reference, unpack_c

M, K, N = 32, 32, 48                      # L0C holds [N1=3, M1*16=32, 16]: 6 fractals of 256 accumulators
ELEMS = M * N
RNG = np.random.default_rng(23)
F16_MAX = np.float16(65504)


def _operands(in_dtype):
    """Packed a, b whose product rounds, overflows float16 and has negative values."""
    if in_dtype == "int8":
        a = RNG.integers(-128, 128, (M, K)).astype(np.int8)
        b = RNG.integers(-128, 128, (K, N)).astype(np.int8)
        a[0], b[:, 0] = 127, 127                  # 127 * 127 * 32 = 516128: beyond float16
        a[1], b[:, 1] = -127, 127
        return pack_a(a, 32).reshape(-1), pack_b(b, 32).reshape(-1)
    a = RNG.standard_normal((M, K)).astype(np.float16)
    b = RNG.standard_normal((K, N)).astype(np.float16)
    if in_dtype == "float16-big":              # f32 accumulators beyond float16 (+-120000 in column 0)
        a[0, 0], a[1, 0], b[0, 0] = 60000, -60000, 2
    return pack_a(a).reshape(-1), pack_b(b).reshape(-1)


def _kernel(name, chip, acc_dtype, outs, emit, block_dim=1):
    """GM a, b -> L0A / L0B -> mmad -> L0C (acc_dtype); per output (dtype, elems) a UB tensor loaded from that GM
    output (its background), then ``emit(kb, l0c, ubs)``, then every UB back to its GM output."""
    kb = KernelBuilder(name, chip=get_chip(chip))
    in_dtype = "int8" if acc_dtype == "int32" else "float16"
    k0 = 32 if in_dtype == "int8" else 16
    per_block = (M * max(K, k0), max(K, k0) * N)
    gm_a = kb.tensor(in_dtype, (per_block[0] * block_dim,), "GM", "a")
    gm_b = kb.tensor(in_dtype, (per_block[1],), "GM", "b")
    gm_outs = [kb.tensor(dt, (elems * block_dim,), "GM", f"out{i}") for i, (dt, elems) in enumerate(outs)]
    ubs = [kb.tensor(dt, (elems,), "UB", f"ub{i}") for i, (dt, elems) in enumerate(outs)]
    l0a = kb.tensor(in_dtype, (per_block[0],), "L0A", "l0a")
    l0b = kb.tensor(in_dtype, (per_block[1],), "L0B", "l0b")
    l0c = kb.tensor(acc_dtype, (ELEMS,), "L0C", "l0c")
    isz = np.dtype(in_dtype).itemsize
    kb.data_move(l0a, gm_a[kb.block_idx * per_block[0]], 0, 1, per_block[0] * isz // 32, 0, 0)
    kb.data_move(l0b, gm_b, 0, 1, per_block[1] * isz // 32, 0, 0)
    for ub, gm, (dt, elems) in zip(ubs, gm_outs, outs):
        kb.data_move(ub, gm[kb.block_idx * elems], 0, 1, elems * np.dtype(dt).itemsize // 32, 0, 0)
    kb.mmad(l0c, l0a, l0b, M, K, N, False)
    emit(kb, l0c, ubs)
    for ub, gm, (dt, elems) in zip(ubs, gm_outs, outs):
        kb.data_move(gm[kb.block_idx * elems], ub, 0, 1, elems * np.dtype(dt).itemsize // 32, 0, 0)
    return kb.build(inputs=[gm_a, gm_b], outputs=gm_outs, block_dim=block_dim, check=False)


def _run(kernel, chip, a, b, backgrounds):
    device = Device(get_chip(chip))
    ptrs = [device.to_device(a), device.to_device(b)] + [device.to_device(bg.copy()) for bg in backgrounds]
    record = device.run(kernel, ptrs)
    return [device.from_device(p, bg.shape, bg.dtype) for p, bg in zip(ptrs[2:], backgrounds)], record


def _same_bits(x, y):
    return x.shape == y.shape and x.dtype == y.dtype and x.tobytes() == y.tobytes()


def _saturated(values):
    """What a saturating chip keeps of a float result: inf -> +-max, NaN -> 0."""
    fmax = np.finfo(values.dtype).max
    return np.nan_to_num(values, nan=0.0, posinf=fmax, neginf=-fmax).astype(values.dtype)


def _want(raw, dst_dtype, relu):
    """numpy's meaning of a form on a saturating chip: one nearest-even rounding, then max(x, 0)."""
    with np.errstate(over="ignore"):
        out = raw.astype(np.float64).astype(dst_dtype) if raw.dtype.kind == "i" and dst_dtype != raw.dtype \
            else raw.astype(dst_dtype)
    if out.dtype.kind == "f" and (relu or dst_dtype != raw.dtype):
        out = _saturated(out)
    return np.maximum(out, out.dtype.type(0)) if relu else out


FORMS = [("float32", "float32", False), ("float32", "float32", True), ("float16", "float16", False),
         ("float16", "float16", True), ("int32", "int32", False), ("float32", "float16", False),
         ("float32", "float16", True), ("float16", "float32", False), ("int32", "float16", False)]


# every form on Ascend910; the f32 -> f16 forms on the other chips with an L0C -> UB path too
CASES = [("Ascend910",) + form for form in FORMS] + [(chip,) + form for chip in ("Ascend310", "Ascend310P3")
                                                     for form in FORMS[5:7]]


@pytest.mark.parametrize("chip,src,dst,relu", CASES)
def test_every_form_matches_numpy(chip, src, dst, relu):
    outs = [(src, ELEMS), (dst, ELEMS)]

    def emit(kb, l0c, ubs):
        kb.data_move(ubs[0], l0c, 0, 1, ELEMS * np.dtype(src).itemsize // 32, 0, 0)   # the raw accumulators
        kb.copy_matrix_cc_to_ubuf(ubs[1], l0c, 0, 1, ELEMS // 256, 0, 0, relu=relu)
    a, b = _operands("int8" if src == "int32" else "float16-big")
    (raw, got), record = _run(_kernel(f"cc_{src}_{dst}_{relu}", chip, src, outs, emit), chip, a, b,
                              [np.zeros(ELEMS, src), np.zeros(ELEMS, dst)])
    want = _want(raw, np.dtype(dst), relu)
    assert _same_bits(got, want)
    if src == "int32":
        c = unpack_c(raw.reshape(N // 16, M // 16, 16, 16), M, N)
        assert c[0, 0] == 516128 and c[1, 1] == -516128
    if dst == "float16" and src != dst:
        assert (got == F16_MAX).any() and (relu or (got == -F16_MAX).any())     # overflow saturated (65504)
        assert not np.array_equal(got.astype(raw.dtype), raw)                     # the rounding did happen
    if relu:
        assert (got >= 0).all() and (raw < 0).any()
    if (src, dst) == ("float32", "float32") and not relu:
        assert _same_bits(got, raw)


def test_bursts_with_gaps_in_both_operands():
    """3 bursts of 1 fractal: the read skips one f32 fractal, the write leaves two f16 fractals of background."""
    outs = [("float32", ELEMS), ("float16", 9 * 256)]
    background = np.full(9 * 256, 7, np.float16)

    def emit(kb, l0c, ubs):
        kb.data_move(ubs[0], l0c, 0, 1, ELEMS * 4 // 32, 0, 0)
        kb.copy_matrix_cc_to_ubuf(ubs[1][256], l0c[256], 0, 3, 1, 1, 2, relu=True)
    a, b = _operands("float16")
    (raw, got), _ = _run(_kernel("cc_gaps", "Ascend910", "float32", outs, emit), "Ascend910", a, b,
                         [np.zeros(ELEMS, np.float32), background])
    want = background.reshape(9, 256).copy()
    for i in range(3):
        want[1 + 3 * i] = np.maximum(raw.reshape(6, 256)[1 + 2 * i].astype(np.float16), np.float16(0))
    assert _same_bits(got, want.reshape(-1))


def _vector_path(kb, ub_src, ub_dst, src, dst, relu):
    """vconv (round_mode '', s32 -> f16 as deq with scale 1.0) then vrelu / vmaxs, over ELEMS elements."""
    reps = ELEMS // 64
    if src != dst:
        rep_src, rep_dst = np.dtype(src).itemsize * 2, np.dtype(dst).itemsize * 2
        deq = {"deqscale": 1.0} if src == "int32" else {}
        kb.vconv(64, "", ub_dst, ub_src, reps, 1, 1, rep_dst, rep_src, **deq)
    if relu:
        lanes = 256 // np.dtype(dst).itemsize
        if dst == "float16":
            kb.vrelu(lanes, ub_dst, ub_dst, ELEMS // lanes, 1, 1, 8, 8)
        else:
            kb.vmaxs(lanes, ub_dst, ub_dst, 0, ELEMS // lanes, 1, 1, 8, 8)


@pytest.mark.parametrize("src,dst,relu", [("float32", "float16", False), ("float32", "float16", True),
                                          ("float16", "float32", False), ("int32", "float16", False),
                                          ("float32", "float32", True), ("float16", "float16", True)])
def test_bit_identical_to_data_move_then_vconv_then_relu(src, dst, relu):
    outs = [(src, ELEMS), (dst, ELEMS), (dst, ELEMS)]

    def emit(kb, l0c, ubs):
        kb.data_move(ubs[0], l0c, 0, 1, ELEMS * np.dtype(src).itemsize // 32, 0, 0)
        target = ubs[0] if src == dst else ubs[1]
        _vector_path(kb, ubs[0], target, src, dst, relu)
        if src == dst:
            kb.data_move(ubs[1], ubs[0], 0, 1, ELEMS * np.dtype(dst).itemsize // 32, 0, 0)
        kb.copy_matrix_cc_to_ubuf(ubs[2], l0c, 0, 2, 3, 0, 0, relu=relu)
    a, b = _operands("int8" if src == "int32" else "float16-big")
    (_, vector, direct), _ = _run(_kernel(f"cc_vs_{src}_{dst}", "Ascend910", src, outs, emit), "Ascend910", a, b,
                                  [np.zeros(ELEMS, src), np.zeros(ELEMS, dst), np.zeros(ELEMS, dst)])
    assert _same_bits(direct, vector)


def test_nan_and_inf_follow_vconv_on_a_saturating_chip():
    """mmad saturates on these chips, so L0C never holds NaN / inf from a kernel; the row's conversion still
    treats them as vconv does (NaN -> 0, inf -> +-max) and a plain copy moves the bits."""
    chip = get_chip("Ascend910")
    vconv = saturating(ISA["vconv"].semantics, chip, np.dtype(np.float16))
    src = np.array([np.nan, np.inf, -np.inf, 65519.0, 65520.0, -1.5, 2049.0, 1e-8], np.float32)
    for relu in (False, True):
        fix = cc_to_ub._converter(cc_to_ub._semantics, chip, (np.dtype(np.float32), np.dtype(np.float16)), relu,
                                  True)
        got = fix(src.view(np.uint8).reshape(1, -1), _Burst(src.size * 2)).view(np.float16).reshape(-1)
        want = vconv(src, np.dtype(np.float32), np.dtype(np.float16), "", None)
        want = np.maximum(want, np.float16(0)) if relu else want
        assert _same_bits(got, want)
    assert list(want[:5]) == [0, F16_MAX, 0, 65504, 65504]
    copy = cc_to_ub._converter(cc_to_ub._semantics, chip, (np.dtype(np.float32),) * 2, False, False)
    assert _same_bits(copy(src.view(np.uint8).reshape(1, -1), _Burst(src.nbytes)).view(np.float32).reshape(-1),
                      src)


class _Burst:
    def __init__(self, dst_burst):
        self.dst_burst = dst_burst


def test_cost_row_is_the_l0c_to_ub_path_priced_by_source_bytes():
    outs = [("float32", ELEMS), ("float16", ELEMS)]
    a, b = _operands("float16")
    backgrounds = [np.zeros(ELEMS, np.float32), np.zeros(ELEMS, np.float16)]
    moved = lambda kb, l0c, ubs: kb.data_move(ubs[0], l0c, 0, 1, ELEMS * 4 // 32, 0, 0)   # noqa: E731
    copied = lambda kb, l0c, ubs: kb.copy_matrix_cc_to_ubuf(ubs[1], l0c, 0, 1, ELEMS // 256)   # noqa: E731
    _, by_move = _run(_kernel("cc_cost_dm", "Ascend910", "float32", outs, moved), "Ascend910", a, b, backgrounds)
    _, by_copy = _run(_kernel("cc_cost_cc", "Ascend910", "float32", outs, copied), "Ascend910", a, b, backgrounds)
    static = [s for s in by_copy.trace.statics if s.opcode == "copy_matrix_cc_to_ubuf"]
    assert len(static) == 1 and static[0].pipe == "V" and static[0].path == ("L0C", "UB")
    assert (static[0].index, ELEMS * 4) in by_copy.trace.blocks[0].records      # source (L0C) bytes
    assert by_copy.cost.busy_cycles("V") == by_move.cost.busy_cycles("V") > 0
    assert by_copy.cost.total_cycles == by_move.cost.total_cycles


def test_lockstep_batches_match_block_by_block(monkeypatch):
    """4 blocks, each converting its own L0C (its own slice of a) with relu and gaps; the batched form runs."""
    blocks, calls = 4, []
    original = cc_to_ub._batch

    def counted(*args):
        batch = original(*args)
        return lambda b: (calls.append(b.active_count()), batch(b))
    monkeypatch.setattr(cc_to_ub, "_batch", counted)
    outs = [("float16", 8 * 256)]

    def emit(kb, l0c, ubs):
        kb.copy_matrix_cc_to_ubuf(ubs[0], l0c, 0, 2, 3, 0, 1, relu=True)
    a = np.concatenate([_operands("float16")[0] for _ in range(blocks)])
    _, b = _operands("float16")
    kernel = _kernel("cc_batch", "Ascend910", "float32", outs, emit, block_dim=blocks)
    _, _, got = same_as_reference(kernel, [a, b, np.full(blocks * 8 * 256, 3, np.float16)], "Ascend910",
                                  monkeypatch, blocks)
    assert calls and max(calls) > 1
    per_block = got.reshape(blocks, 8, 256)
    assert (per_block[:, 3] == 3).all() and (per_block[:, 7] == 3).all()
    assert not np.array_equal(per_block[0], per_block[1])
    assert (per_block[:, [0, 1, 2, 4, 5, 6]] >= 0).all()


def _error_kernel(build, chip="Ascend910"):
    kb = KernelBuilder("cc_err", chip=get_chip(chip))
    gm = kb.tensor("float16", (ELEMS,), "GM", "gm")
    t = {"gm": gm, "l0c": kb.tensor("float32", (ELEMS,), "L0C", "l0c"),
         "l0c_s32": kb.tensor("int32", (ELEMS,), "L0C", "l0c_s32"),
         "ub16": kb.tensor("float16", (ELEMS,), "UB", "ub16"), "ub32": kb.tensor("float32", (ELEMS,), "UB", "ub32"),
         "ub_s32": kb.tensor("int32", (ELEMS,), "UB", "ub_s32")}
    build(kb, t)
    kernel = kb.build(inputs=[], outputs=[gm], check=False)
    device = Device(get_chip(chip))
    device.run(kernel, [device.to_device(np.zeros(ELEMS, np.float16))])


ERRORS = {
    "src not L0C": (InvalidOperandError, "must be in L0C",
                    lambda kb, t: kb.copy_matrix_cc_to_ubuf(t["ub16"], t["ub32"], 0, 1, 1)),
    "dst not UB": (InvalidOperandError, "must be in UB",
                   lambda kb, t: kb.copy_matrix_cc_to_ubuf(t["gm"], t["l0c"], 0, 1, 1)),
    "dtype pair": (InvalidOperandError, "no float32 -> int32 form",
                   lambda kb, t: kb.copy_matrix_cc_to_ubuf(t["ub_s32"], t["l0c"], 0, 1, 1)),
    "relu on int32": (InvalidOperandError, "relu applies to",
                      lambda kb, t: kb.copy_matrix_cc_to_ubuf(t["ub_s32"], t["l0c_s32"], 0, 1, 1, relu=True)),
    "nburst range": (InvalidOperandError, "nburst should be in the range",
                     lambda kb, t: kb.copy_matrix_cc_to_ubuf(t["ub16"], t["l0c"], 0, 0, 1)),
    "sid range": (InvalidOperandError, "sid should be in the range",
                  lambda kb, t: kb.copy_matrix_cc_to_ubuf(t["ub16"], t["l0c"], 16, 1, 1)),
    "misaligned src": (AlignmentError, "align",
                       lambda kb, t: kb.copy_matrix_cc_to_ubuf(t["ub16"], t["l0c"][8], 0, 1, 1)),
    "misaligned dst": (AlignmentError, "align",
                       lambda kb, t: kb.copy_matrix_cc_to_ubuf(t["ub16"][8], t["l0c"], 0, 1, 1)),
    "l0c out of bounds": (OutOfBoundsError, "l0c",
                          lambda kb, t: kb.copy_matrix_cc_to_ubuf(t["ub32"], t["l0c"], 0, 2, 3, 1, 0)),
    "ub out of bounds": (OutOfBoundsError, "ub16",
                         lambda kb, t: kb.copy_matrix_cc_to_ubuf(t["ub16"][256], t["l0c"], 0, 1, 6)),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_checks_raise_located_typed_errors(case):
    cls, text, build = ERRORS[case]
    with pytest.raises(cls, match=text) as info:
        _error_kernel(build)
    assert info.value.kernel == "cc_err" and info.value.instr_index is not None
    assert "copy_matrix_cc_to_ubuf" in str(info.value)


def test_a2_chip_without_l0c_to_ub_rejects_it():
    assert not get_chip("Ascend910B1").isa.get("copy_matrix_cc_to_ubuf")
    with pytest.raises(UnsupportedDtypeError, match="not an instruction of Ascend910B1.*fixpipe") as info:
        _error_kernel(lambda kb, t: kb.copy_matrix_cc_to_ubuf(t["ub16"], t["l0c"], 0, 1, 1), "Ascend910B1")
    assert isinstance(info.value, SimulatorError) and info.value.instr_index is not None


@pytest.mark.parametrize("chip", ["Ascend910", "Ascend310", "Ascend310P3"])
def test_chips_list_the_forms_with_a_source(chip):
    model = get_chip(chip)
    assert model.isa["copy_matrix_cc_to_ubuf"] == {"f322f32", "f162f16", "s322s32", "f322f16", "f162f32", "s322f16"}
    assert "CRMODE_F32toF16" in model.sources["isa.copy_matrix_cc_to_ubuf"]
    assert model.paths[("L0C", "UB")].pipe == "V"
