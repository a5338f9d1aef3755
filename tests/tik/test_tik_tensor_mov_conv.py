"""tensor_mov block_mode 'm' with a dtype conversion (copy_matrix_cc_to_ubuf): the L1OUT result of an mmad written
into UB as float16 (f32 -> f16, s32 -> f16), with relu, in a hand-written TIK cube kernel, against numpy; the
options that stay unsupported and a chip without an L0C -> UB path."""
import numpy as np
import pytest
from tbe import tik

from npusim.errors.sim import InvalidOperandError, UnsupportedDtypeError
from npusim.errors.tik import TikInstructionUnsupportedError

RNG = np.random.default_rng(91)
M, K, N = 32, 64, 48
ACC = {"float16": "float32", "int8": "int32"}


def _conv_kernel(dtype, relu, burst_gaps=False):
    """A in L1 -> L0A (load2dv1 per fractal row), B -> L0B, mmad into L1OUT, then tensor_mov 'm' twice: the raw
    accumulators (same dtype) and the float16 conversion, each data_moved to GM."""
    ti = tik.Tik()
    k0 = 16 if dtype == "float16" else 32
    isz = 2 if dtype == "float16" else 1
    k1, m1, n1 = K // k0, M // 16, N // 16
    frac = 16 * k0
    acc = ACC[dtype]
    a_gm = ti.Tensor(dtype, (k1, M, k0), name="a", scope=tik.scope_gm)
    b_gm = ti.Tensor(dtype, (k1, N, k0), name="b", scope=tik.scope_gm)
    raw_gm = ti.Tensor(acc, (n1, M, 16), name="raw", scope=tik.scope_gm)
    c_gm = ti.Tensor("float16", (n1, M, 16), name="c", scope=tik.scope_gm)
    a_l1 = ti.Tensor(dtype, (k1, M, k0), name="a_l1", scope=tik.scope_cbuf)
    b_l1 = ti.Tensor(dtype, (k1, N, k0), name="b_l1", scope=tik.scope_cbuf)
    a_l0 = ti.Tensor(dtype, (m1, k1, 16, k0), name="a_l0", scope=tik.scope_ca)
    b_l0 = ti.Tensor(dtype, (k1, n1, 16, k0), name="b_l0", scope=tik.scope_cb)
    c_l0 = ti.Tensor(acc, (n1, M, 16), name="c_l0", scope=tik.scope_cbuf_out)
    raw_ub = ti.Tensor(acc, (n1, M, 16), name="raw_ub", scope=tik.scope_ubuf)
    c_ub = ti.Tensor("float16", (n1, M, 16), name="c_ub", scope=tik.scope_ubuf)
    ti.data_move(a_l1, a_gm, 0, 1, k1 * M * k0 * isz // 32, 0, 0)
    ti.data_move(b_l1, b_gm, 0, 1, k1 * N * k0 * isz // 32, 0, 0)
    with ti.for_range(0, m1) as i:
        ti.load2dv1(a_l0[i * k1 * frac], a_l1[i * frac], 0, k1, m1, 0)
    ti.load2dv1(b_l0, b_l1, 0, k1 * n1, 1, 0)
    ti.mmad(c_l0, a_l0, b_l0, M, K, N, 0)
    ti.tensor_mov(raw_ub, c_l0, "m", 1, n1 * m1, 0, 0)
    if burst_gaps:      # n1 bursts of one fractal row each half: every other fractal, into every other slot
        ti.vec_dup(128, c_ub, 7.0, n1 * M * 16 // 128, 8)
        ti.tensor_mov(c_ub, c_l0, "m", n1 * m1 // 2, 1, 1, 1, relu=relu)
    else:
        ti.tensor_mov(c_ub, c_l0, "m", 1, n1 * m1, 0, 0, relu=relu)
    ti.data_move(raw_gm, raw_ub, 0, 1, n1 * M * 16 * np.dtype(acc).itemsize // 32, 0, 0)
    ti.data_move(c_gm, c_ub, 0, 1, n1 * M * 16 * 2 // 32, 0, 0)
    ti.BuildCCE(kernel_name=f"tmov_conv_{dtype}", inputs=[a_gm, b_gm], outputs=[raw_gm, c_gm])
    return ti


def _operands(dtype):
    k0 = 16 if dtype == "float16" else 32
    if dtype == "float16":
        a = RNG.standard_normal((M, K)).astype(np.float16)
        b = RNG.standard_normal((K, N)).astype(np.float16)
        a[0, 0], a[1, 0], b[0, 0] = 60000, -60000, 2          # +-120000: beyond float16
    else:
        a = RNG.integers(-128, 128, (M, K)).astype(np.int8)
        b = RNG.integers(-128, 128, (K, N)).astype(np.int8)
        a[0], b[:, 0] = 127, 127                              # 127 * 127 * 64: beyond float16
    a_frac = np.ascontiguousarray(a.reshape(M, K // k0, k0).transpose(1, 0, 2))
    b_frac = np.ascontiguousarray(b.T.reshape(N, K // k0, k0).transpose(1, 0, 2))
    return a, b, a_frac, b_frac


def _to_f16_saturated(raw, relu):
    with np.errstate(over="ignore"):
        out = raw.astype(np.float64).astype(np.float16)      # one nearest-even rounding
    out = np.nan_to_num(out, posinf=65504, neginf=-65504).astype(np.float16)
    return np.maximum(out, np.float16(0)) if relu else out


@pytest.mark.parametrize("dtype,relu", [("float16", False), ("float16", True), ("int8", False)])
def test_mmad_then_converting_tensor_mov_matches_numpy(soc, dtype, relu):
    a, b, a_frac, b_frac = _operands(dtype)
    raw, got = _conv_kernel(dtype, relu).tikdb.start_debug({"a": a_frac, "b": b_frac}, interactive=False)
    c = raw.transpose(1, 0, 2).reshape(M, N)
    if dtype == "int8":
        assert np.array_equal(c.astype(np.int64), a.astype(np.int64) @ b.astype(np.int64))
    else:
        np.testing.assert_allclose(c, a.astype(np.float32) @ b.astype(np.float32), rtol=1e-5, atol=1e-2)
    want = _to_f16_saturated(raw, relu)
    assert got.dtype == np.float16 and got.tobytes() == want.tobytes()
    assert got.max() == 65504 and not np.array_equal(got.astype(raw.dtype), raw)
    if relu:
        assert (got >= 0).all() and (raw < 0).any()


def test_bursts_and_gaps_count_fractals_of_each_side():
    a, b, a_frac, b_frac = _operands("float16")
    raw, got = _conv_kernel("float16", True, burst_gaps=True).tikdb.start_debug({"a": a_frac, "b": b_frac},
                                                                                interactive=False)
    fractals = raw.size // 256
    want = np.full((fractals, 256), 7, np.float16)
    want[0::2] = _to_f16_saturated(raw.reshape(fractals, 256)[0::2], True)
    assert got.reshape(-1).tobytes() == want.reshape(-1).tobytes()


def _l1out_and_ub(ti, src_dtype="float32", dst_dtype="float16"):
    src = ti.Tensor(src_dtype, (256,), name="s", scope=tik.scope_cbuf_out)
    dst = ti.Tensor(dst_dtype, (256,), name="d", scope=tik.scope_ubuf)
    return dst, src


def test_options_that_stay_unsupported_and_invalid_forms():
    ti = tik.Tik()
    dst, src = _l1out_and_ub(ti)
    with pytest.raises(TikInstructionUnsupportedError, match="deqscale"):
        ti.tensor_mov(dst, src, "m", 1, 1, 0, 0, deqscale=0.5)
    with pytest.raises(TikInstructionUnsupportedError, match="sid_store_mode"):
        ti.tensor_mov(dst, src, "m", 1, 1, 0, 0, sid_store_mode=1)
    ub32 = ti.Tensor("float32", (256,), name="ub32", scope=tik.scope_ubuf)
    with pytest.raises(TikInstructionUnsupportedError, match="conversion from float16 to float32 outside"):
        ti.tensor_mov(ub32, dst, "", 1, 1, 0, 0)
    ti = tik.Tik()
    dst, src = _l1out_and_ub(ti, "int32", "float16")
    gm = ti.Tensor("float16", (256,), name="gm", scope=tik.scope_gm)
    with pytest.raises(InvalidOperandError, match="relu applies to"):
        ti.tensor_mov(dst, src, "m", 1, 1, 0, 0, relu=True)
        ti.data_move(gm, dst, 0, 1, 16, 0, 0)
        ti.BuildCCE(kernel_name="tmov_bad_relu", inputs=[], outputs=[gm])
        ti.tikdb.start_debug({}, interactive=False)


def test_a2_chip_has_no_l0c_to_ub_conversion():
    from tbe.common.platform import set_current_compile_soc_info
    assert set_current_compile_soc_info("Ascend910B1") == "success"
    ti = tik.Tik()
    dst, src = _l1out_and_ub(ti)
    gm = ti.Tensor("float16", (256,), name="gm", scope=tik.scope_gm)
    with pytest.raises(UnsupportedDtypeError, match="not an instruction of Ascend910B1.*leaves L0C by the fixpipe"):
        ti.tensor_mov(dst, src, "m", 1, 1, 0, 0)
        ti.data_move(gm, dst, 0, 1, 16, 0, 0)
        ti.BuildCCE(kernel_name="tmov_a2", inputs=[], outputs=[gm])
        ti.tikdb.start_debug({}, interactive=False)
