"""TIK's checks on the cube instructions: typed errors with TIK's texts, at build time."""
import pytest
from tbe import tik

from npusim.errors import (TikAlignmentError, TikDtypeError, TikInstructionUnsupportedError, TikOperandRangeError,
                           TikRepeatError, TikScopeError, TikSyntaxError, TikTensorOverflowError)


def _tensors(ti, dtype="float16", m=32, k=32, n=32, acc="float32"):
    k0 = 16 if dtype == "float16" else 32
    a = ti.Tensor(dtype, (k // k0, m, k0), name="a_l1", scope=tik.scope_cbuf)
    b = ti.Tensor(dtype, (k // k0, n, k0), name="b_l1", scope=tik.scope_cbuf)
    c = ti.Tensor(acc, (n // 16, m, 16), name="c", scope=tik.scope_cbuf_out)
    return a, b, c


def test_matmul_scopes_and_dtypes():
    ti = tik.Tik()
    a, b, c = _tensors(ti)
    ub = ti.Tensor("float32", (1024,), name="ub", scope=tik.scope_ubuf)
    with pytest.raises(TikScopeError, match="dst's scope should be L1_OUT, but dst's scope is scope_ubuf"):
        ti.matmul(ub, a, b, 32, 32, 32)
    with pytest.raises(TikScopeError, match="b's scope should be L1, but b's scope is L1_OUT"):
        ti.matmul(c, a, c, 32, 32, 32)
    c16 = ti.Tensor("int32", (2, 32, 16), name="c16", scope=tik.scope_cbuf_out)
    with pytest.raises(TikDtypeError, match="current chip not support f16f16s32 for Intrinsic matmul"):
        ti.matmul(c16, a, b, 32, 32, 32)


def test_matmul_dimension_ranges_and_types():
    ti = tik.Tik()
    a, b, c = _tensors(ti)
    with pytest.raises(TikOperandRangeError, match=r"m should be in range of \[1, 4096\], but m is 4097"):
        ti.matmul(c, a, b, 4097, 32, 32)
    with pytest.raises(TikOperandRangeError, match=r"k should be in range of \[1, 16384\], but k is 0"):
        ti.matmul(c, a, b, 32, 0, 32)
    with pytest.raises(TikSyntaxError, match="n should be int, but n's type is float"):
        ti.matmul(c, a, b, 32, 32, 32.0)
    with pytest.raises(TikSyntaxError, match="init_l1out should be bool type."):
        ti.matmul(c, a, b, 32, 32, 32, init_l1out=1)
    s8 = _tensors(ti, "int8", acc="int32")
    with pytest.raises(TikOperandRangeError, match=r"k should be in range of \[1, 32768\], but k is 32769"):
        ti.matmul(s8[2], s8[0], s8[1], 32, 32769, 32)


def test_matmul_overflow_and_alignment():
    ti = tik.Tik()
    a, b, c = _tensors(ti)
    c48 = ti.Tensor("float32", (2, 48, 16), name="c48", scope=tik.scope_cbuf_out)
    with pytest.raises(TikTensorOverflowError, match="a tensor overflow, expected elements: 1536, actual "
                                                      "elements: 1024"):
        ti.matmul(c48, a, b, 48, 32, 32)
    with pytest.raises(TikTensorOverflowError, match="dst tensor overflow, expected elements: 1024, actual "
                                                      "elements: 768"):
        ti.matmul(c[256], a, b, 32, 32, 32)
    with pytest.raises(TikAlignmentError, match="source a and b address should be 512B aligned"):
        ti.matmul(c, a[16], b, 16, 16, 32)
    with pytest.raises(TikAlignmentError, match="dst address should be 1024B aligned"):
        ti.matmul(c[16], a, b, 16, 16, 16)


def test_matmul_with_no_l0_left():
    ti = tik.Tik()
    a, b, c = _tensors(ti)
    ti.Tensor("float16", (ti.get_available_buffer_size(tik.scope_ca) // 2,), name="all_l0a", scope=tik.scope_ca)
    from npusim.errors import TikMemoryError
    with pytest.raises(TikMemoryError, match="matmul needs at least one 512-byte fractal free in L0A"):
        ti.matmul(c, a, b, 32, 32, 32)


def test_fixpipe_checks():
    ti = tik.Tik()
    _, _, c = _tensors(ti)
    gm = ti.Tensor("float32", (2, 32, 16), name="out", scope=tik.scope_gm)
    gm16 = ti.Tensor("float16", (2, 32, 16), name="out16", scope=tik.scope_gm)
    ub = ti.Tensor("float32", (1024,), name="ub", scope=tik.scope_ubuf)
    l1 = ti.Tensor("float32", (1024,), name="l1", scope=tik.scope_cbuf)
    with pytest.raises(TikScopeError, match="dst's scope must be scope_gm or scope_ubuf, input scope is: L1"):
        ti.fixpipe(l1, c, 2, 64, 0, 0)
    with pytest.raises(TikScopeError, match="src's scope must be L1_out, input scope is: scope_ubuf"):
        ti.fixpipe(gm, ub, 2, 64, 0, 0)
    with pytest.raises(TikSyntaxError, match="burst_len should be even number, input burst_len is 63"):
        ti.fixpipe(gm, c, 2, 63, 0, 0)
    with pytest.raises(TikOperandRangeError, match=r"cburst_num should be in range of \[1, 4095\], input value is 0"):
        ti.fixpipe(gm, c, 0, 64, 0, 0)
    with pytest.raises(TikSyntaxError, match="extend_params should not be None when src and dst dtype is f32f16"):
        ti.fixpipe(gm16, c, 2, 64, 0, 0)
    with pytest.raises(TikSyntaxError, match="input extend_params dict contains invalid key, please check!"):
        ti.fixpipe(gm, c, 2, 64, 0, 0, extend_params={"scale": 2.0})
    with pytest.raises(TikSyntaxError, match="src.dtype and dst.dtype mismatch with quantize_params 'mode' "
                                             "int322fp16."):
        ti.fixpipe(gm16, c, 2, 64, 0, 0, extend_params={"quantize_params": {"mode": "int322fp16",
                                                                            "mode_param": 1.0}})
    with pytest.raises(TikTensorOverflowError, match="src tensor overflow, expected elements: 1536, actual "
                                                      "elements: 1024"):
        ti.fixpipe(gm, c, 3, 64, 0, 0)


def test_fixpipe_extend_params_checks():
    ti = tik.Tik()
    _, _, c = _tensors(ti)
    gm = ti.Tensor("float32", (2, 32, 16), name="out", scope=tik.scope_gm)
    bias = ti.Tensor("float32", (32,), name="bias", scope=tik.scope_cbuf)
    bias16 = ti.Tensor("float16", (32,), name="bias16", scope=tik.scope_cbuf)
    with pytest.raises(TikSyntaxError, match="Intrinsic fixpipe doesn't support relu when enable element-wise-add "
                                             "or bias"):
        ti.fixpipe(gm, c, 2, 64, 0, 0, extend_params={"bias": bias, "relu": True})
    with pytest.raises(TikScopeError, match="extend_params bias's scope should be L1"):
        ti.fixpipe(gm, c, 2, 64, 0, 0, extend_params={"bias": gm})
    with pytest.raises(TikSyntaxError, match="extend_params 'bias' should have the same dtype with src"):
        ti.fixpipe(gm, c, 2, 64, 0, 0, extend_params={"bias": bias16})
    with pytest.raises(TikTensorOverflowError, match="extend_params 'bias' tensor overflow, expected elements: 48"):
        ti.fixpipe(gm, c[0], 3, 2, 0, 0, extend_params={"bias": bias})
    with pytest.raises(TikScopeError, match="extend_params 'element-wise-add' scope should be L1"):
        ti.fixpipe(gm, c, 2, 64, 0, 0, extend_params={"element-wise-add": c})
    with pytest.raises(TikSyntaxError, match="fixpipe doesn't support enable extend_params 'bias' and "
                                             "extend_params 'element-wise-add' at the same time"):
        ti.fixpipe(gm, c, 2, 64, 0, 0, extend_params={"element-wise-add": bias, "bias": bias})
    small = ti.Tensor("float32", (1000,), name="small", scope=tik.scope_cbuf)
    with pytest.raises(TikTensorOverflowError, match="extend_params 'element-wise-add' tensor overflow, expected "
                                                      "elements: 1024, actual elements: 1000"):
        ti.fixpipe(gm, c, 2, 64, 0, 0, extend_params={"element-wise-add": small})
    with pytest.raises(TikInstructionUnsupportedError, match="int322fp16 with a Scalar or tensor mode_param"):
        s32 = ti.Tensor("int32", (2, 32, 16), name="s32", scope=tik.scope_cbuf_out)
        gm16 = ti.Tensor("float16", (2, 32, 16), name="gm16", scope=tik.scope_gm)
        scale = ti.Scalar("float16", init_value=0.5)
        ti.fixpipe(gm16, s32, 2, 64, 0, 0, extend_params={"quantize_params": {"mode": "int322fp16",
                                                                              "mode_param": scale}})
    with pytest.raises(TikSyntaxError, match="extend_params 'relu' should be bool type."):
        ti.fixpipe(gm, c, 2, 64, 0, 0, extend_params={"relu": 1})


def test_load2dv1_and_mmad_checks():
    ti = tik.Tik()
    a_l1 = ti.Tensor("float16", (1024,), name="a_l1", scope=tik.scope_cbuf)
    a_l0 = ti.Tensor("float16", (1024,), name="a_l0", scope=tik.scope_ca)
    b_l0 = ti.Tensor("float16", (256,), name="b_l0", scope=tik.scope_cb)
    c_l0 = ti.Tensor("float32", (256,), name="c_l0", scope=tik.scope_cbuf_out)
    ub = ti.Tensor("float16", (256,), name="ub", scope=tik.scope_ubuf)
    with pytest.raises(TikRepeatError, match=r"repeat_times should be in the range of \[1, 255\], input "
                                             r"repeat_times: 0"):
        ti.load2dv1(a_l0, a_l1, 0, 0, 1, 0)
    with pytest.raises(TikScopeError, match="dst's scope should be L0A or L0B, but dst's scope is scope_ubuf"):
        ti.load2dv1(ub, a_l1, 0, 1, 1, 0)
    with pytest.raises(TikOperandRangeError, match=r"src_stride should be in the range of \[0, 65535\]"):
        ti.load2dv1(a_l0, a_l1, 0, 1, 65536, 0)
    with pytest.raises(TikAlignmentError, match="dst is not 512 Byte align"):
        ti.load2dv1(a_l0[16], a_l1, 0, 1, 1, 0)
    b8 = ti.Tensor("int8", (512,), name="b8", scope=tik.scope_cb)
    with pytest.raises(TikDtypeError, match="current chip not support f16s8f32 for Intrinsic mmad"):
        ti.mmad(c_l0, a_l0, b8, 16, 16, 16, 0)
    with pytest.raises(TikScopeError, match="src_filter's scope should be L0B, but src_filter's scope is L0A"):
        ti.mmad(c_l0, a_l0, a_l0, 16, 16, 16, 0)
    with pytest.raises(TikInstructionUnsupportedError, match="mmad en_winograd_a is not supported"):
        ti.mmad(c_l0, a_l0, b_l0, 16, 16, 16, 0, en_winograd_a=True)
    with pytest.raises(TikOperandRangeError, match=r"matrix_k should be in the range of \[0, 4095\]"):
        ti.mmad(c_l0, a_l0, b_l0, 16, 4096, 16, 0)


def test_scalar_dependent_load2dv1_is_checked_at_run_time():
    """A src_stride from a Scalar reaching past the L1 tensor fails in tikdb, with TIK's AccessViolation."""
    from npusim.errors import TikAccessViolationError
    ti = tik.Tik()
    x_gm = ti.Tensor("float16", (256,), name="x", scope=tik.scope_gm)
    y_gm = ti.Tensor("float32", (256,), name="y", scope=tik.scope_gm)
    stride = ti.InputScalar("int32", name="stride")
    x_l1 = ti.Tensor("float16", (512,), name="x_l1", scope=tik.scope_cbuf)
    a_l0 = ti.Tensor("float16", (512,), name="a_l0", scope=tik.scope_ca)
    b_l0 = ti.Tensor("float16", (256,), name="b_l0", scope=tik.scope_cb)
    c_l0 = ti.Tensor("float32", (512,), name="c_l0", scope=tik.scope_cbuf_out)
    ti.data_move(x_l1, x_gm, 0, 1, 16, 0, 0)
    ti.load2dv1(a_l0, x_l1, 0, 2, stride, 0)
    ti.load2dv1(b_l0, x_l1, 0, 1, 1, 0)
    ti.mmad(c_l0, a_l0, b_l0, 32, 16, 16, 0)
    ti.fixpipe(y_gm, c_l0, 1, 32, 0, 0)
    ti.BuildCCE(kernel_name="tik_load2d_rt", inputs=[x_gm, stride], outputs=[y_gm])
    import numpy as np
    x = np.ones(256, np.float16)
    ti.tikdb.start_debug({"x": x, "stride": 1}, interactive=False)
    with pytest.raises(TikAccessViolationError, match="AccessViolation"):
        ti.tikdb.start_debug({"x": x, "stride": 2}, interactive=False)
