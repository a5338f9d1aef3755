"""TIK's low-level cube instructions as hand-written kernels use them (``load2dv1`` L1 -> L0A / L0B, ``mmad`` into
L1OUT, ``fixpipe`` out), and fixpipe's extend_params: bias, fp322fp16 / int322fp16 quantisation, relu."""
import numpy as np
from tbe import tik
from test_tik_cube_matmul import ACC, check, operands, pack, unpack

RNG = np.random.default_rng(77)


def handwritten_kernel(m, k, n, dtype="float16"):
    """What matmul does, by hand: A [K1, M, K0] in L1 loaded into L0A one fractal row at a time (src_stride M1),
    B [K1, N, K0] loaded whole into L0B, one mmad, fixpipe."""
    ti = tik.Tik()
    k0 = 16 if dtype == "float16" else 32
    isz = 2 if dtype == "float16" else 1
    k1, m1, n1 = -(-k // k0), -(-m // 16), -(-n // 16)
    frac = 16 * k0
    a_gm = ti.Tensor(dtype, (k1, m1 * 16, k0), name="a", scope=tik.scope_gm)
    b_gm = ti.Tensor(dtype, (k1, n1 * 16, k0), name="b", scope=tik.scope_gm)
    c_gm = ti.Tensor(ACC[dtype], (n1, m, 16), name="c", scope=tik.scope_gm)
    a_l1 = ti.Tensor(dtype, (k1, m1 * 16, k0), name="a_l1", scope=tik.scope_cbuf)
    b_l1 = ti.Tensor(dtype, (k1, n1 * 16, k0), name="b_l1", scope=tik.scope_cbuf)
    a_l0 = ti.Tensor(dtype, (m1, k1, 16, k0), name="a_l0", scope=tik.scope_ca)
    b_l0 = ti.Tensor(dtype, (k1, n1, 16, k0), name="b_l0", scope=tik.scope_cb)
    c_l0 = ti.Tensor(ACC[dtype], (n1, m1 * 16, 16), name="c_l0", scope=tik.scope_cbuf_out)
    ti.data_move(a_l1, a_gm, 0, 1, k1 * m1 * frac * isz // 32, 0, 0)
    ti.data_move(b_l1, b_gm, 0, 1, k1 * n1 * frac * isz // 32, 0, 0)
    with ti.for_range(0, m1) as i:
        ti.load2dv1(a_l0[i * k1 * frac], a_l1[i * frac], 0, k1, m1, 0)
    ti.load2dv1(b_l0, b_l1, 0, k1 * n1, 1, 0)
    ti.mmad(c_l0, a_l0, b_l0, m1 * 16, k, n1 * 16, 0)
    ti.fixpipe(c_gm, c_l0, n1, m * 16 * 4 // 32, 0, 0)
    ti.BuildCCE(kernel_name="tik_handwritten_mmad", inputs=[a_gm, b_gm], outputs=[c_gm])
    return ti


def test_load2dv1_and_mmad_by_hand(soc):
    for dtype, (m, k, n) in (("float16", (30, 48, 40)), ("int8", (20, 64, 17))):
        a_mat, b_mat = operands(m, k, n, dtype)
        a_np, b_np = pack(a_mat, b_mat, dtype)
        out, = handwritten_kernel(m, k, n, dtype).tikdb.start_debug({"a": a_np, "b": b_np}, interactive=False)
        check(out, a_mat, b_mat)


def test_mmad_is_bias_accumulates(soc):
    """Two mmads into one L1OUT tensor: the second with is_bias=1 adds; a load2dv1 with if_transpose and
    src_stride 0 (the same fractal every repeat) feeds the second."""
    ti = tik.Tik()
    x_gm = ti.Tensor("float16", (16, 16), name="x", scope=tik.scope_gm)
    eye_gm = ti.Tensor("float16", (16, 16), name="eye", scope=tik.scope_gm)
    c_gm = ti.Tensor("float32", (1, 32, 16), name="c", scope=tik.scope_gm)
    x_l1 = ti.Tensor("float16", (16, 16), name="x_l1", scope=tik.scope_cbuf)
    eye_l1 = ti.Tensor("float16", (16, 16), name="eye_l1", scope=tik.scope_cbuf)
    a_l0 = ti.Tensor("float16", (2, 16, 16), name="a_l0", scope=tik.scope_ca)
    b_l0 = ti.Tensor("float16", (16, 16), name="b_l0", scope=tik.scope_cb)
    c_l0 = ti.Tensor("float32", (1, 32, 16), name="c_l0", scope=tik.scope_cbuf_out)
    ti.data_move(x_l1, x_gm, 0, 1, 16, 0, 0)
    ti.data_move(eye_l1, eye_gm, 0, 1, 16, 0, 0)
    ti.load2dv1(b_l0, eye_l1, 0, 1, 1, 0)
    ti.load2dv1(a_l0, x_l1, 0, 2, 0, 0)                       # X twice
    ti.mmad(c_l0, a_l0, b_l0, 32, 16, 16, 0)
    ti.load2dv1(a_l0, x_l1, 0, 2, 0, 0, if_transpose=True)    # X^T twice
    ti.mmad(c_l0, a_l0, b_l0, 32, 16, 16, 1)
    ti.fixpipe(c_gm, c_l0, 1, 32 * 16 * 4 // 32, 0, 0)
    ti.BuildCCE(kernel_name="tik_mmad_bias", inputs=[x_gm, eye_gm], outputs=[c_gm])
    x = RNG.standard_normal((16, 16)).astype(np.float16)
    out, = ti.tikdb.start_debug({"x": x, "eye": np.eye(16, dtype=np.float16)}, interactive=False)
    expected = (x.astype(np.float32) + x.T.astype(np.float32))
    np.testing.assert_array_equal(out[0], np.concatenate([expected, expected]))


def fixpipe_kernel(m, k, n, dtype, out_dtype, extend):
    """matmul, then fixpipe with ``extend`` ("bias": "bias" / "element-wise-add": "add" stand for L1 tensors the
    kernel loads from GM inputs of those names)."""
    ti = tik.Tik()
    k0, acc = (16 if dtype == "float16" else 32), ACC[dtype]
    isz = 2 if dtype == "float16" else 1
    k1, m1, n1 = -(-k // k0), -(-m // 16), -(-n // 16)
    a_gm = ti.Tensor(dtype, (k1, m1 * 16, k0), name="a", scope=tik.scope_gm)
    b_gm = ti.Tensor(dtype, (k1, n1 * 16, k0), name="b", scope=tik.scope_gm)
    inputs = [a_gm, b_gm]
    c_gm = ti.Tensor(out_dtype, (n1, m, 16), name="c", scope=tik.scope_gm)
    a_l1 = ti.Tensor(dtype, (k1, m1 * 16, k0), name="a_l1", scope=tik.scope_cbuf)
    b_l1 = ti.Tensor(dtype, (k1, n1 * 16, k0), name="b_l1", scope=tik.scope_cbuf)
    c_l0 = ti.Tensor(acc, (n1, m1 * 16, 16), name="c_l0", scope=tik.scope_cbuf_out)
    ti.data_move(a_l1, a_gm, 0, 1, k1 * m1 * 16 * k0 * isz // 32, 0, 0)
    ti.data_move(b_l1, b_gm, 0, 1, k1 * n1 * 16 * k0 * isz // 32, 0, 0)
    extend = dict(extend)
    if extend.get("element-wise-add") == "add":
        add_gm = ti.Tensor(acc, (n1, m1 * 16, 16), name="add", scope=tik.scope_gm)
        add_l1 = ti.Tensor(acc, (n1, m1 * 16, 16), name="add_l1", scope=tik.scope_cbuf)
        ti.data_move(add_l1, add_gm, 0, 1, n1 * m1 * 16 * 16 * 4 // 32, 0, 0)
        extend["element-wise-add"] = add_l1
        inputs.append(add_gm)
    if extend.get("bias") == "bias":
        bias_gm = ti.Tensor(acc, (n1 * 16,), name="bias", scope=tik.scope_gm)
        bias_l1 = ti.Tensor(acc, (n1 * 16,), name="bias_l1", scope=tik.scope_cbuf)
        ti.data_move(bias_l1, bias_gm, 0, 1, n1 * 16 * 4 // 32, 0, 0)
        extend["bias"] = bias_l1
        inputs.append(bias_gm)
    ti.matmul(c_l0, a_l1, b_l1, m, k, n)
    ti.fixpipe(c_gm, c_l0, n1, m * 16 * 4 // 32, 0, 0, extend_params=extend)
    ti.BuildCCE(kernel_name="tik_fixpipe_ext", inputs=inputs, outputs=[c_gm])
    return ti


def test_fixpipe_bias_and_fp322fp16(soc):
    m, k, n = 21, 32, 36
    a_mat, b_mat = operands(m, k, n, "float16")
    a_np, b_np = pack(a_mat, b_mat, "float16")
    bias = RNG.standard_normal(48).astype(np.float32)
    ti = fixpipe_kernel(m, k, n, "float16", "float16",
                        {"bias": "bias", "quantize_params": {"mode": "fp322fp16", "mode_param": None}})
    out, = ti.tikdb.start_debug({"a": a_np, "b": b_np, "bias": bias}, interactive=False)
    assert out.dtype == np.float16
    exact = a_mat.astype(np.float32) @ b_mat.astype(np.float32) + bias[:n]
    np.testing.assert_allclose(unpack(out, n).astype(np.float32), exact, rtol=2e-3, atol=2e-3)


def test_fixpipe_int32_bias_and_int322fp16_scale(soc):
    m, k, n = 17, 64, 20
    a_mat, b_mat = operands(m, k, n, "int8")
    a_np, b_np = pack(a_mat, b_mat, "int8")
    exact = a_mat.astype(np.int64) @ b_mat.astype(np.int64)
    bias = RNG.integers(-1000, 1000, 32).astype(np.int32)
    out, = fixpipe_kernel(m, k, n, "int8", "int32", {"bias": "bias"}).tikdb.start_debug(
        {"a": a_np, "b": b_np, "bias": bias}, interactive=False)
    np.testing.assert_array_equal(unpack(out, n), exact + bias[:n])
    scale = 0.0625
    ti = fixpipe_kernel(m, k, n, "int8", "float16", {"quantize_params": {"mode": "int322fp16", "mode_param": scale}})
    out, = ti.tikdb.start_debug({"a": a_np, "b": b_np}, interactive=False)
    np.testing.assert_array_equal(unpack(out, n), (exact * scale).astype(np.float16))


def test_fixpipe_int32_relu(soc):
    m, k, n = 16, 32, 16
    a_mat, b_mat = operands(m, k, n, "int8")
    a_np, b_np = pack(a_mat, b_mat, "int8")
    out, = fixpipe_kernel(m, k, n, "int8", "int32", {"relu": True}).tikdb.start_debug(
        {"a": a_np, "b": b_np}, interactive=False)
    np.testing.assert_array_equal(unpack(out, n), np.maximum(a_mat.astype(np.int64) @ b_mat.astype(np.int64), 0))


def test_fixpipe_in_chunks_when_ub_is_nearly_full():
    """A kernel keeping all but 3 KiB of UB: fixpipe's scratch holds a few rows at a time."""
    m, k, n = 100, 32, 40
    a_mat, b_mat = operands(m, k, n, "float16")
    a_np, b_np = pack(a_mat, b_mat, "float16")
    ti = tik.Tik()
    k1, m1, n1 = 2, 7, 3
    a_gm = ti.Tensor("float16", (k1, m1 * 16, 16), name="a", scope=tik.scope_gm)
    b_gm = ti.Tensor("float16", (k1, n1 * 16, 16), name="b", scope=tik.scope_gm)
    c_gm = ti.Tensor("float32", (n1, m, 16), name="c", scope=tik.scope_gm)
    ti.Tensor("float16", (ti.get_available_buffer_size(tik.scope_ubuf) // 2 - 1536,), name="keep",
              scope=tik.scope_ubuf)
    a_l1 = ti.Tensor("float16", (k1, m1 * 16, 16), name="a_l1", scope=tik.scope_cbuf)
    b_l1 = ti.Tensor("float16", (k1, n1 * 16, 16), name="b_l1", scope=tik.scope_cbuf)
    c_l0 = ti.Tensor("float32", (n1, m1 * 16, 16), name="c_l0", scope=tik.scope_cbuf_out)
    ti.data_move(a_l1, a_gm, 0, 1, k1 * m1 * 16, 0, 0)
    ti.data_move(b_l1, b_gm, 0, 1, k1 * n1 * 16, 0, 0)
    ti.matmul(c_l0, a_l1, b_l1, m, k, n)
    ti.fixpipe(c_gm, c_l0, n1, m * 16 * 4 // 32, 0, 0)
    ti.BuildCCE(kernel_name="tik_fixpipe_chunks", inputs=[a_gm, b_gm], outputs=[c_gm])
    out, = ti.tikdb.start_debug({"a": a_np, "b": b_np}, interactive=False)
    check(out, a_mat, b_mat)


def test_fixpipe_element_wise_add_then_fp322fp16(soc):
    m, k, n = 20, 32, 30
    a_mat, b_mat = operands(m, k, n, "float16")
    a_np, b_np = pack(a_mat, b_mat, "float16")
    add = RNG.standard_normal((2, 32, 16)).astype(np.float32)
    ti = fixpipe_kernel(m, k, n, "float16", "float16",
                        {"element-wise-add": "add", "quantize_params": {"mode": "fp322fp16", "mode_param": None}})
    out, = ti.tikdb.start_debug({"a": a_np, "b": b_np, "add": add}, interactive=False)
    exact = a_mat.astype(np.float32) @ b_mat.astype(np.float32) + unpack(add[:, :m], n)
    np.testing.assert_allclose(unpack(out, n).astype(np.float32), exact, rtol=2e-3, atol=2e-3)


def test_fixpipe_into_ub(soc):
    """fixpipe's dst may be a UB tensor (newer TIK): the result then leaves through UB -> GM by data_move."""
    m, k, n = 24, 16, 16
    a_mat, b_mat = operands(m, k, n, "float16")
    a_np, b_np = pack(a_mat, b_mat, "float16")
    ti = tik.Tik()
    a_gm = ti.Tensor("float16", a_np.shape, name="a", scope=tik.scope_gm)
    b_gm = ti.Tensor("float16", b_np.shape, name="b", scope=tik.scope_gm)
    c_gm = ti.Tensor("float32", (1, m, 16), name="c", scope=tik.scope_gm)
    a_l1 = ti.Tensor("float16", a_np.shape, name="a_l1", scope=tik.scope_cbuf)
    b_l1 = ti.Tensor("float16", b_np.shape, name="b_l1", scope=tik.scope_cbuf)
    c_l0 = ti.Tensor("float32", (1, 32, 16), name="c_l0", scope=tik.scope_cbuf_out)
    c_ub = ti.Tensor("float32", (1, m, 16), name="c_ub", scope=tik.scope_ubuf)
    ti.data_move(a_l1, a_gm, 0, 1, a_np.size // 16, 0, 0)
    ti.data_move(b_l1, b_gm, 0, 1, b_np.size // 16, 0, 0)
    ti.matmul(c_l0, a_l1, b_l1, m, k, n)
    ti.fixpipe(c_ub, c_l0, 1, m * 2, 0, 0)
    ti.data_move(c_gm, c_ub, 0, 1, m * 2, 0, 0)
    ti.BuildCCE(kernel_name="tik_fixpipe_ub", inputs=[a_gm, b_gm], outputs=[c_gm])
    out, = ti.tikdb.start_debug({"a": a_np, "b": b_np}, interactive=False)
    check(out, a_mat, b_mat)
