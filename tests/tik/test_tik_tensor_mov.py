"""tensor_mov as public TIK kernels use it: block_mode '' between GM and UB (dst gap before src gap), block_mode 'm'
moving whole L1OUT fractals into UB after a matmul (with relu); the unsupported options are named."""
import numpy as np
import pytest
from tbe import tik

from npusim.errors.tik import TikInstructionUnsupportedError, TikScopeError, TikSyntaxError


def test_block_mode_blank_moves_blocks_with_gaps(soc):
    ti = tik.Tik()
    x = ti.Tensor("float16", (256,), name="x", scope=tik.scope_gm)
    y = ti.Tensor("float16", (256,), name="y", scope=tik.scope_gm)
    ub = ti.Tensor("float16", (128,), name="ub", scope=tik.scope_ubuf)
    ti.vec_dup(128, ub, 0.0, 1, 8)
    ti.tensor_mov(ub, x, "", 4, 1, 1, 2)        # 4 bursts of 16 halves, src gap 2 blocks, dst gap 1 block
    ti.tensor_mov(y, ub, "", 1, 8, 0, 0)
    ti.BuildCCE(kernel_name="tmov_blank", inputs=[x], outputs=[y])
    data = np.arange(256, dtype=np.float16)
    out, = ti.tikdb.start_debug({"x": data}, interactive=False)
    want = np.zeros(128, np.float16)
    for i in range(4):
        want[i * 32:i * 32 + 16] = data[i * 48:i * 48 + 16]
    np.testing.assert_array_equal(out[:128], want)


def _ceil(a, b):
    return -(-a // b)


@pytest.mark.parametrize("relu", [False, True])
def test_block_mode_m_moves_l1out_fractals_to_ub(soc, relu):
    m = k = n = 32
    ti = tik.Tik()
    a_gm = ti.Tensor("float16", (k // 16, m, 16), name="a", scope=tik.scope_gm)
    b_gm = ti.Tensor("float16", (k // 16, n, 16), name="b", scope=tik.scope_gm)
    c_gm = ti.Tensor("float32", (n // 16, m, 16), name="c", scope=tik.scope_gm)
    a_l1 = ti.Tensor("float16", (k // 16, m, 16), name="a_l1", scope=tik.scope_cbuf)
    b_l1 = ti.Tensor("float16", (k // 16, n, 16), name="b_l1", scope=tik.scope_cbuf)
    c_out = ti.Tensor("float32", (n // 16, m, 16), name="c_out", scope=tik.scope_cbuf_out)
    c_ub = ti.Tensor("float32", (n // 16, m, 16), name="c_ub", scope=tik.scope_ubuf)
    ti.data_move(a_l1, a_gm, 0, 1, k * m * 2 // 32, 0, 0)
    ti.data_move(b_l1, b_gm, 0, 1, k * n * 2 // 32, 0, 0)
    ti.matmul(c_out, a_l1, b_l1, m, k, n)
    ti.tensor_mov(c_ub, c_out, "m", 1, (n // 16) * (m // 16), 0, 0, relu=relu)
    ti.data_move(c_gm, c_ub, 0, 1, n * m * 4 // 32, 0, 0)
    ti.BuildCCE(kernel_name="tmov_m", inputs=[a_gm, b_gm], outputs=[c_gm])
    rng = np.random.default_rng(5)
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    a_frac = np.ascontiguousarray(a.reshape(m, k // 16, 16).transpose(1, 0, 2))
    b_frac = np.ascontiguousarray(b.T.reshape(n, k // 16, 16).transpose(1, 0, 2))
    out, = ti.tikdb.start_debug({"a": a_frac, "b": b_frac}, interactive=False)
    got = out.transpose(1, 0, 2).reshape(m, n)
    want = a.astype(np.float32) @ b.astype(np.float32)
    if relu:
        want = np.maximum(want, 0)
        assert (got >= 0).all()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-4)


def _two_tensors(ti, src_scope, dst_scope, src_dtype="float32", dst_dtype="float32"):
    src = ti.Tensor(src_dtype, (256,), name="s", scope=src_scope)
    dst = ti.Tensor(dst_dtype, (256,), name="d", scope=dst_scope)
    return dst, src


def test_errors_name_the_cause():
    ti = tik.Tik()
    dst, src = _two_tensors(ti, tik.scope_ubuf, tik.scope_ubuf, dst_dtype="float16")
    with pytest.raises(TikInstructionUnsupportedError, match="conversion from float32 to float16 outside"):
        ti.tensor_mov(dst, src, "", 1, 1, 0, 0)
    ti = tik.Tik()
    dst, src = _two_tensors(ti, tik.scope_cbuf_out, tik.scope_ubuf)
    with pytest.raises(TikInstructionUnsupportedError, match="deqscale"):
        ti.tensor_mov(dst, src, "m", 1, 1, 0, 0, deqscale=0.5)
    with pytest.raises(TikSyntaxError, match="block_mode should be '' or 'm'"):
        ti.tensor_mov(dst, src, "x", 1, 1, 0, 0)
    ti = tik.Tik()
    dst, src = _two_tensors(ti, tik.scope_ubuf, tik.scope_ubuf)
    with pytest.raises(TikScopeError, match="block_mode 'm' moves L1OUT -> UB"):
        ti.tensor_mov(dst, src, "m", 1, 1, 0, 0)
