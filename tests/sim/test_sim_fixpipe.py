"""copy_matrix_cc_to_gm (the FIX pipe's L0C -> GM move, npusim/sim/isa/fixpipe.py): conversion, relu, NZ and ND
out, strides, lockstep batches, cost on the FIX pipe, and its hardware checks (incl. chips without it)."""
import numpy as np
import pytest

from npusim.errors.sim import (AlignmentError, InvalidOperandError, OutOfBoundsError, SimulatorError,
                               UnsupportedDtypeError)
from npusim.sim import Device, KernelBuilder, get_chip
from sim_helpers import pack_a, pack_b, same_as_reference, unpack_c

CHIP = "Ascend910B1"
M, K, N = 32, 32, 48                      # L0C holds [N1=3, M1*16=32, 16]
RNG = np.random.default_rng(15)


def _cube_kernel(name, in_dtype, acc_dtype, outs, block_dim=1):
    """A kernel: GM a, b -> L0A, L0B -> mmad -> L0C, then ``outs(kb, l0c, gm_outs)`` writes the result; ``outs``
    is (emit, [(dtype, elems), ...])."""
    emit, out_specs = outs
    kb = KernelBuilder(name, chip=get_chip(CHIP))
    k0 = 16 if in_dtype == "float16" else 32
    a_elems, b_elems = M * max(K, k0), max(K, k0) * N
    gm_a = kb.tensor(in_dtype, (a_elems,), "GM", "a")
    gm_b = kb.tensor(in_dtype, (b_elems,), "GM", "b")
    gm_outs = [kb.tensor(dt, (elems,), "GM", f"out{i}") for i, (dt, elems) in enumerate(out_specs)]
    l0a = kb.tensor(in_dtype, (a_elems,), "L0A", "l0a")
    l0b = kb.tensor(in_dtype, (b_elems,), "L0B", "l0b")
    l0c = kb.tensor(acc_dtype, (M * N,), "L0C", "l0c")
    isz = np.dtype(in_dtype).itemsize
    kb.data_move(l0a, gm_a, 0, 1, a_elems * isz // 32, 0, 0)
    kb.data_move(l0b, gm_b, 0, 1, b_elems * isz // 32, 0, 0)
    kb.mmad(l0c, l0a, l0b, M, K, N, False)
    emit(kb, l0c, gm_outs)
    return kb.build(inputs=[gm_a, gm_b], outputs=gm_outs, block_dim=block_dim, check=False)


def _run(kernel, a, b, out_specs, overflow_mode=None, backgrounds=None):
    device = Device(get_chip(CHIP), overflow_mode=overflow_mode)
    ptrs = [device.to_device(a), device.to_device(b)]
    backgrounds = backgrounds or [np.zeros(e, dt) for dt, e in out_specs]
    ptrs += [device.to_device(bg.copy()) for bg in backgrounds]
    record = device.run(kernel, ptrs)
    return [device.from_device(p, bg.shape, bg.dtype) for p, bg in zip(ptrs[2:], backgrounds)], record


def _f16_operands():
    a = RNG.standard_normal((M, K)).astype(np.float16)
    b = RNG.standard_normal((K, N)).astype(np.float16)
    return a, b, pack_a(a).reshape(-1), pack_b(b).reshape(-1)


def _same_bits(x, y):
    return x.shape == y.shape and x.dtype == y.dtype and x.tobytes() == y.tobytes()


def test_f32_copy_equals_data_move_and_f16_is_one_nearest_even_rounding():
    a, b, pa, pb = _f16_operands()
    specs = [("float32", M * N), ("float32", M * N), ("float16", M * N), ("float16", M * N)]

    def emit(kb, l0c, outs):
        kb.data_move(outs[0], l0c, 0, 1, M * N * 4 // 32, 0, 0)          # the plain L0C -> GM move
        kb.copy_matrix_cc_to_gm(outs[1], l0c, N, M, M, M)
        kb.copy_matrix_cc_to_gm(outs[2], l0c, N, M, M, M)
        kb.copy_matrix_cc_to_gm(outs[3], l0c, N, M, M, M, relu=True)
    (moved, copied, f16, f16_relu), record = _run(_cube_kernel("fx_f16", "float16", "float32", (emit, specs)),
                                                  pa, pb, specs)
    assert _same_bits(copied, moved)
    c = unpack_c(moved.reshape(N // 16, M // 16, 16, 16), M, N)
    np.testing.assert_allclose(c, a.astype(np.float32) @ b.astype(np.float32), rtol=1e-5, atol=1e-5)
    assert _same_bits(f16, moved.astype(np.float16))
    assert not np.array_equal(f16.astype(np.float32), moved)      # the rounding did happen
    assert _same_bits(f16_relu, np.maximum(moved.astype(np.float16), np.float16(0)))
    assert (f16_relu >= 0).all() and (f16 < 0).any()
    fix = [s for s in record.trace.statics if s.opcode == "copy_matrix_cc_to_gm"]
    assert len(fix) == 3 and all(s.pipe == "FIX" and s.path == ("L0C", "GM") for s in fix)
    assert record.cost.busy_cycles("FIX") > 0


def test_nd_out_with_row_stride_and_partial_rows_nz():
    _, _, pa, pb = _f16_operands()
    m_out, row_pitch = 20, N + 8
    specs = [("float32", M * N), ("float16", M * row_pitch), ("float16", N * 24)]
    backgrounds = [np.zeros(M * N, np.float32), np.full(M * row_pitch, 7, np.float16),
                   np.full(N * 24, 7, np.float16)]

    def emit(kb, l0c, outs):
        kb.data_move(outs[0], l0c, 0, 1, M * N * 4 // 32, 0, 0)
        kb.copy_matrix_cc_to_gm(outs[1], l0c, N - 5, m_out, M, row_pitch, nz2nd=True)   # ND, 43 columns
        kb.copy_matrix_cc_to_gm(outs[2], l0c, N, m_out, M, 24)                          # NZ, 20 of 32 rows
    (moved, nd, nz), _ = _run(_cube_kernel("fx_nd", "float16", "float32", (emit, specs)), pa, pb, specs,
                              backgrounds=backgrounds)
    c = unpack_c(moved.reshape(N // 16, M // 16, 16, 16), M, N).astype(np.float16)
    want_nd = backgrounds[1].reshape(M, row_pitch).copy()
    want_nd[:m_out, :N - 5] = c[:m_out, :N - 5]
    assert _same_bits(nd, want_nd.reshape(-1))
    want_nz = backgrounds[2].reshape(N // 16, 24, 16).copy()
    want_nz[:, :m_out] = c[:m_out].reshape(m_out, N // 16, 16).transpose(1, 0, 2)
    assert _same_bits(nz, want_nz.reshape(-1))


def test_int32_copy_deq_and_relu():
    a = RNG.integers(-128, 128, (M, K)).astype(np.int8)
    b = RNG.integers(-128, 128, (K, N)).astype(np.int8)
    specs = [("int32", M * N), ("float16", M * N), ("int32", M * N)]
    scale = 0.0123

    def emit(kb, l0c, outs):
        kb.copy_matrix_cc_to_gm(outs[0], l0c, N, M, M, M)
        kb.copy_matrix_cc_to_gm(outs[1], l0c, N, M, M, M, deq_scale=scale)
        kb.copy_matrix_cc_to_gm(outs[2], l0c, N, M, M, M, relu=True)
    (s32, deq, s32_relu), _ = _run(_cube_kernel("fx_s8", "int8", "int32", (emit, specs)),
                                   pack_a(a, 32).reshape(-1), pack_b(b, 32).reshape(-1), specs)
    exact = a.astype(np.int64) @ b.astype(np.int64)
    assert np.array_equal(unpack_c(s32.reshape(N // 16, M // 16, 16, 16), M, N), exact)
    f16_scale = float(np.float16(scale))
    want = (s32.astype(np.float64) * f16_scale).astype(np.float32).astype(np.float16)
    assert _same_bits(deq, want)
    assert np.array_equal(s32_relu, np.maximum(s32, 0))


@pytest.mark.parametrize("mode,expected", [("saturation", 65504.0), ("inf_nan", np.inf)])
def test_f16_overflow_follows_the_chip_mode(mode, expected):
    a = np.zeros((M, K), np.float16)
    a[0, 0] = 60000
    b = np.zeros((K, N), np.float16)
    b[0, 0] = 2
    specs = [("float16", M * N)]

    def emit(kb, l0c, outs):
        kb.copy_matrix_cc_to_gm(outs[0], l0c, N, M, M, M)
    (out,), _ = _run(_cube_kernel(f"fx_{mode}", "float16", "float32", (emit, specs)), pack_a(a).reshape(-1),
                     pack_b(b).reshape(-1), specs, overflow_mode=mode)
    assert out[0] == expected and (out[1:] == 0).all()


def test_lockstep_batches_match_block_by_block(monkeypatch):
    _, _, pa, pb = _f16_operands()
    blocks = 3
    specs = [("float16", blocks * M * N), ("float32", blocks * M * N)]

    def emit(kb, l0c, outs):
        kb.copy_matrix_cc_to_gm(outs[0][kb.block_idx * (M * N)], l0c, N, M, M, M, relu=True)
        kb.copy_matrix_cc_to_gm(outs[1][kb.block_idx * (M * N)], l0c, N, M, M, N, nz2nd=True)
    kernel = _cube_kernel("fx_batch", "float16", "float32", (emit, specs), block_dim=blocks)
    arrays = [pa, pb, np.zeros(blocks * M * N, np.float16), np.zeros(blocks * M * N, np.float32)]
    _, _, f16, nd = same_as_reference(kernel, arrays, CHIP, monkeypatch, blocks)
    c = nd[:M * N].reshape(M, N)
    assert (nd.reshape(blocks, -1) == nd[:M * N]).all()
    want = np.maximum(c.astype(np.float16), np.float16(0)).reshape(M, N // 16, 16).transpose(1, 0, 2)
    assert _same_bits(f16.reshape(blocks, -1)[2], want.reshape(-1))


def _error_kernel(build, chip=CHIP):
    kb = KernelBuilder("fx_err", chip=get_chip(chip))
    gm16 = kb.tensor("float16", (M * N,), "GM", "gm16")
    gm32 = kb.tensor("float32", (M * N,), "GM", "gm32")
    l0c = kb.tensor("float32", (M * N,), "L0C", "l0c")
    ub = kb.tensor("float32", (M * N,), "UB", "ub")
    build(kb, {"gm16": gm16, "gm32": gm32, "l0c": l0c, "ub": ub})
    kernel = kb.build(inputs=[], outputs=[gm16, gm32], check=False)
    device = Device(get_chip(chip))
    device.run(kernel, [device.to_device(np.zeros(M * N, np.float16)), device.to_device(np.zeros(M * N, np.float32))])


ERRORS = {
    "src not L0C": (InvalidOperandError, "must be in L0C",
                    lambda kb, t: kb.copy_matrix_cc_to_gm(t["gm16"], t["ub"], N, M, M, M)),
    "dst not GM": (InvalidOperandError, "must be in GM",
                   lambda kb, t: kb.copy_matrix_cc_to_gm(t["ub"], t["l0c"], N, M, M, M)),
    "dtype pair": (InvalidOperandError, "no float32 -> int32 form",
                   lambda kb, t: kb.copy_matrix_cc_to_gm(t["gm32"].reinterpret_cast_to("int32"), t["l0c"], N, M,
                                                         M, M)),
    "nz partial columns": (InvalidOperandError, "multiple of 16",
                           lambda kb, t: kb.copy_matrix_cc_to_gm(t["gm16"], t["l0c"], N - 1, M, M, M)),
    "src stride": (InvalidOperandError, "src_stride 16 is smaller",
                   lambda kb, t: kb.copy_matrix_cc_to_gm(t["gm16"], t["l0c"], N, M, 16, M)),
    "nd stride": (InvalidOperandError, "ND rows would overlap",
                  lambda kb, t: kb.copy_matrix_cc_to_gm(t["gm16"], t["l0c"], N, M, M, N - 1, nz2nd=True)),
    "n_size range": (InvalidOperandError, "n_size should be in the range",
                     lambda kb, t: kb.copy_matrix_cc_to_gm(t["gm16"], t["l0c"], 0, M, M, M)),
    "deq without scale": (InvalidOperandError, "deq_scale is required",
                          lambda kb, t: kb.copy_matrix_cc_to_gm(t["gm16"], t["l0c"].reinterpret_cast_to("int32"),
                                                                N, M, M, M)),
    "scale on f32": (InvalidOperandError, "applies to it only",
                     lambda kb, t: kb.copy_matrix_cc_to_gm(t["gm16"], t["l0c"], N, M, M, M, deq_scale=0.5)),
    "misaligned src": (AlignmentError, "align",
                       lambda kb, t: kb.copy_matrix_cc_to_gm(t["gm16"], t["l0c"][8], 16, 16, 16, 16)),
    "gm out of bounds": (OutOfBoundsError, "gm16",
                         lambda kb, t: kb.copy_matrix_cc_to_gm(t["gm16"][16], t["l0c"], N, M, M, M)),
    "l0c out of bounds": (OutOfBoundsError, "l0c",
                          lambda kb, t: kb.copy_matrix_cc_to_gm(t["gm16"], t["l0c"][256], N, M, M, M)),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_hardware_checks_raise_located_typed_errors(case):
    cls, text, build = ERRORS[case]
    with pytest.raises(cls, match=text) as info:
        _error_kernel(build)
    assert info.value.kernel == "fx_err" and info.value.instr_index is not None
    assert "copy_matrix_cc_to_gm" in str(info.value)


@pytest.mark.parametrize("chip", ["Ascend910", "Ascend310", "Ascend310P3"])
def test_chips_without_a_fix_pipe_reject_it(chip):
    assert not get_chip(chip).isa.get("copy_matrix_cc_to_gm")
    with pytest.raises(UnsupportedDtypeError, match=f"not an instruction of {chip}") as info:
        _error_kernel(lambda kb, t: kb.copy_matrix_cc_to_gm(t["gm16"], t["l0c"], N, M, M, M), chip)
    assert isinstance(info.value, SimulatorError) and info.value.instr_index is not None


@pytest.mark.parametrize("blocks", [1, 2])
def test_atomic_add_combines_fixpipe_writes(blocks, monkeypatch):
    """Under set_atomic_add (Atlas A2 accumulates L0C -> GM moves, ascendc_atomic) every block's copy adds."""
    _, _, pa, pb = _f16_operands()
    specs = [("float32", M * N), ("float32", M * N)]

    def emit(kb, l0c, outs):
        kb.data_move(outs[0], l0c, 0, 1, M * N * 4 // 32, 0, 0)
        kb.set_atomic_add("float32")
        kb.copy_matrix_cc_to_gm(outs[1], l0c, N, M, M, M)
        kb.set_atomic_none()
    kernel = _cube_kernel(f"fx_atomic{blocks}", "float16", "float32", (emit, specs), block_dim=blocks)
    background = np.full(M * N, 0.5, np.float32)
    arrays = [pa, pb, np.zeros(M * N, np.float32), background]
    _, _, moved, summed = same_as_reference(kernel, arrays, CHIP, monkeypatch, blocks)
    want = background.copy()
    for _ in range(blocks):
        want += moved
    assert _same_bits(summed, want)
