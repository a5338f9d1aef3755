"""TIK's cube path as public TIK matmul kernels write it: A and B moved GM -> L1 in the [K1, M, K0] / [K1, N, K0]
layouts, ``matmul`` into an L1OUT tensor, ``fixpipe`` to GM; run through tikdb and ops.Custom on both SoCs, against
numpy (fp16 inputs accumulate in float32; int8 in int32, exactly)."""
import numpy as np
import pytest
from tbe import tik

from mindspore import Tensor, ops
from mindspore.ops import CustomRegOp, DataType, custom_info_register
from npusim.sim import profile

RNG = np.random.default_rng(2024)
ACC = {"float16": "float32", "int8": "int32"}


def _k0(dtype):
    return 16 if dtype == "float16" else 32


def _ceil(a, b):
    return -(-a // b)


def matmul_kernel(m, k, n, dtype="float16", kernel_name="tik_matmul", split_k=None, blocks=1, relu=False,
                  reserve=None):
    """c[N1, m, 16] = a x b: a_gm [K1, M, K0], b_gm [K1, N, K0] (fractal layouts, padded); ``blocks`` cores each
    take N1 / blocks fractal columns (block_num); ``split_k``: two matmuls over K, the second accumulating
    (init_l1out=False) -- a K split on a K0 boundary; ``relu``: fixpipe's relu; ``reserve``: {scope: bytes} of
    L0A / L0B declared before matmul (what is left sizes its panels)."""
    ti = tik.Tik()
    k0, acc = _k0(dtype), ACC[dtype]
    k1, mm, n1 = _ceil(k, k0), _ceil(m, 16) * 16, _ceil(n, 16)
    isz = 2 if dtype == "float16" else 1
    a_gm = ti.Tensor(dtype, (k1, mm, k0), name="a", scope=tik.scope_gm)
    b_gm = ti.Tensor(dtype, (k1, n1 * 16, k0), name="b", scope=tik.scope_gm)
    c_gm = ti.Tensor(acc, (n1, m, 16), name="c", scope=tik.scope_gm)
    per = n1 // blocks
    with ti.for_range(0, blocks, block_num=blocks) as core:
        a_l1 = ti.Tensor(dtype, (k1, mm, k0), name="a_l1", scope=tik.scope_cbuf)
        b_l1 = ti.Tensor(dtype, (k1, per * 16, k0), name="b_l1", scope=tik.scope_cbuf)
        c_l1out = ti.Tensor(acc, (per, mm, 16), name="c_l1out", scope=tik.scope_cbuf_out)
        ti.data_move(a_l1, a_gm, 0, 1, k1 * mm * k0 * isz // 32, 0, 0)
        row = per * 16 * k0 * isz // 32
        ti.data_move(b_l1, b_gm[core * per * 16 * k0], 0, k1, row, (n1 - per) * 16 * k0 * isz // 32, 0)
        n_core = per * 16 if blocks > 1 else n          # each core a whole number of N fractals
        for scope, nbytes in (reserve or {}).items():  # L0 space the kernel keeps for itself
            ti.Tensor("uint8", (nbytes,), name=f"keep_{scope.split('.')[-1]}", scope=scope)
        if split_k is None:
            ti.matmul(c_l1out, a_l1, b_l1, m, k, n_core)
        else:
            kb = split_k // k0
            ti.matmul(c_l1out, a_l1, b_l1, m, split_k, n_core)
            ti.matmul(c_l1out, a_l1[kb * mm * k0], b_l1[kb * per * 16 * k0], m, k - split_k, n_core,
                      init_l1out=False)
        extend = {"relu": True} if relu else None
        ti.fixpipe(c_gm[core * per * m * 16], c_l1out, per, m * 16 * 4 // 32, 0, 0, extend_params=extend)
    ti.BuildCCE(kernel_name=kernel_name, inputs=[a_gm, b_gm], outputs=[c_gm])
    return ti


def pack(a_mat, b_mat, dtype):
    """A (m x k) and B (k x n) in the fractal GM layouts, zero-padded."""
    k0 = _k0(dtype)
    m, k = a_mat.shape
    n = b_mat.shape[1]
    k1, mm, nn = _ceil(k, k0), _ceil(m, 16) * 16, _ceil(n, 16) * 16
    a_pad = np.zeros((mm, k1 * k0), dtype)
    a_pad[:m, :k] = a_mat
    b_pad = np.zeros((k1 * k0, nn), dtype)
    b_pad[:k, :n] = b_mat
    return (np.ascontiguousarray(a_pad.reshape(mm, k1, k0).transpose(1, 0, 2)),
            np.ascontiguousarray(b_pad.T.reshape(nn, k1, k0).transpose(1, 0, 2)))


def unpack(c_frac, n):
    """c [N1, m, 16] -> C (m x n)."""
    n1, m, _ = c_frac.shape
    return c_frac.transpose(1, 0, 2).reshape(m, n1 * 16)[:, :n]


def operands(m, k, n, dtype):
    if dtype == "float16":
        return (RNG.standard_normal((m, k)).astype(np.float16), RNG.standard_normal((k, n)).astype(np.float16))
    return (RNG.integers(-128, 128, (m, k)).astype(np.int8), RNG.integers(-128, 128, (k, n)).astype(np.int8))


def reference(a_mat, b_mat):
    if a_mat.dtype == np.int8:
        return a_mat.astype(np.int64) @ b_mat.astype(np.int64)
    return a_mat.astype(np.float32) @ b_mat.astype(np.float32)


def check(out, a_mat, b_mat, relu=False):
    ref = reference(a_mat, b_mat)
    if relu:
        ref = np.maximum(ref, 0)
    got = unpack(out, b_mat.shape[1])
    if a_mat.dtype == np.int8:
        np.testing.assert_array_equal(got.astype(np.int64), ref)
    else:
        scale = np.abs(a_mat.astype(np.float32)) @ np.abs(b_mat.astype(np.float32))
        assert np.all(np.abs(got - ref) <= 1e-6 * scale + 1e-6)


def run_debug(m, k, n, dtype="float16", **kw):
    a_mat, b_mat = operands(m, k, n, dtype)
    a_np, b_np = pack(a_mat, b_mat, dtype)
    ti = matmul_kernel(m, k, n, dtype, **kw)
    out, = ti.tikdb.start_debug({"a": a_np, "b": b_np}, interactive=False)
    return out, a_mat, b_mat


def test_fp16_matmul_odd_m_and_n(soc):
    out, a_mat, b_mat = run_debug(33, 64, 47)
    assert out.shape == (3, 33, 16) and out.dtype == np.float32
    check(out, a_mat, b_mat)


def test_fp16_matmul_odd_k(soc):
    out, a_mat, b_mat = run_debug(20, 40, 30)
    check(out, a_mat, b_mat)


def test_int8_matmul_is_exact(soc):
    out, a_mat, b_mat = run_debug(17, 96, 33, "int8")
    assert out.dtype == np.int32
    check(out, a_mat, b_mat)


def test_init_l1out_false_accumulates_the_second_k_half(soc):
    out, a_mat, b_mat = run_debug(33, 64, 47, split_k=32)
    check(out, a_mat, b_mat)
    out, a_mat, b_mat = run_debug(16, 128, 32, "int8", split_k=64)
    check(out, a_mat, b_mat)


def test_multi_core_over_n_tiles(soc):
    out, a_mat, b_mat = run_debug(24, 48, 64, blocks=2)
    check(out, a_mat, b_mat)


def test_fixpipe_relu(soc):
    out, a_mat, b_mat = run_debug(18, 32, 20, relu=True)
    check(out, a_mat, b_mat, relu=True)


def test_large_matmul_splits_k_and_m_over_l0_capacity():
    """256 x 1024 x 128 fp16: A alone is 512 KiB, far beyond L0A's 64 KiB: panels of M and K, accumulated."""
    out, a_mat, b_mat = run_debug(256, 1024, 128)
    check(out, a_mat, b_mat)


def test_matmul_panels_fit_what_l0_has_left():
    """A kernel holding most of L0A / L0B (at sizes that are not whole fractals) leaves matmul a few fractals:
    M, N and K are all split into panels, and the panels still start on fractal boundaries."""
    reserve = {tik.scope_ca: 65536 - 3 * 512 - 96, tik.scope_cb: 65536 - 2 * 512 - 32}
    out, a_mat, b_mat = run_debug(70, 80, 40, reserve=reserve)
    check(out, a_mat, b_mat)
    out, a_mat, b_mat = run_debug(40, 96, 50, "int8", reserve=reserve)
    check(out, a_mat, b_mat)


def test_batched_matmul_double_buffered(soc):
    """Two independent matmuls in a thread_num=2 loop (each tensor of the body exists twice), as batched TIK
    kernels write them; every local tensor is declared in the body."""
    batch, m, k, n = 2, 20, 48, 24
    mats = [operands(m, k, n, "float16") for _ in range(batch)]
    packed = [pack(a_mat, b_mat, "float16") for a_mat, b_mat in mats]
    a_np, b_np = np.stack([p[0] for p in packed]), np.stack([p[1] for p in packed])
    ti = tik.Tik()
    a_gm = ti.Tensor("float16", a_np.shape, name="a", scope=tik.scope_gm)
    b_gm = ti.Tensor("float16", b_np.shape, name="b", scope=tik.scope_gm)
    c_gm = ti.Tensor("float32", (batch, 2, m, 16), name="c", scope=tik.scope_gm)
    a_size, b_size = a_np[0].size, b_np[0].size
    with ti.for_range(0, batch, thread_num=2) as i:
        a_l1 = ti.Tensor("float16", (a_size,), name="a_l1", scope=tik.scope_cbuf)
        b_l1 = ti.Tensor("float16", (b_size,), name="b_l1", scope=tik.scope_cbuf)
        c_l1out = ti.Tensor("float32", (2, 32, 16), name="c_l1out", scope=tik.scope_cbuf_out)
        ti.data_move(a_l1, a_gm[i * a_size], 0, 1, a_size // 16, 0, 0)
        ti.data_move(b_l1, b_gm[i * b_size], 0, 1, b_size // 16, 0, 0)
        ti.matmul(c_l1out, a_l1, b_l1, m, k, n)
        ti.fixpipe(c_gm[i * 2 * m * 16], c_l1out, 2, m * 16 * 4 // 32, 0, 0)
    ti.BuildCCE(kernel_name="tik_matmul_batched", inputs=[a_gm, b_gm], outputs=[c_gm])
    out, = ti.tikdb.start_debug({"a": a_np, "b": b_np}, interactive=False)
    for j, (a_mat, b_mat) in enumerate(mats):
        check(out[j], a_mat, b_mat)


def test_profile_shows_cube_and_mte1_busy(soc):
    a_mat, b_mat = operands(64, 128, 64, "float16")
    a_np, b_np = pack(a_mat, b_mat, "float16")
    ti = matmul_kernel(64, 128, 64, kernel_name="tik_matmul_prof")
    with profile() as session:
        out, = ti.tikdb.start_debug({"a": a_np, "b": b_np}, interactive=False)
    check(out, a_mat, b_mat)
    row = session.rows()[0]
    assert row["cycles"] > 0
    for pipe in ("M", "MTE1", "MTE2", "MTE3"):
        assert row["utilisation"].get(pipe, 0.0) > 0, pipe


# -- through ops.Custom(func_type="tbe") -------------------------------------------------------------------------
def _reg(dtype_in, dtype_out):
    return (CustomRegOp().input(0, "a").input(1, "b").output(0, "c")
            .dtype_format(dtype_in, dtype_in, dtype_out).target("Ascend").get_op_info())


SHAPES = {}


@custom_info_register(_reg(DataType.F16_Default, DataType.F32_Default))
def tik_matmul_f16_impl(a, b, c, kernel_name="tik_matmul_f16_impl"):
    m, k, n = SHAPES["mkn"]
    matmul_kernel(m, k, n, "float16", kernel_name=kernel_name)


@custom_info_register(_reg(DataType.I8_Default, DataType.I32_Default))
def tik_matmul_s8_impl(a, b, c, kernel_name="tik_matmul_s8_impl"):
    m, k, n = SHAPES["mkn"]
    matmul_kernel(m, k, n, "int8", kernel_name=kernel_name)


@pytest.mark.parametrize("dtype", ["float16", "int8"])
def test_matmul_through_custom(soc, dtype):
    m, k, n = 33, 64, 47
    SHAPES["mkn"] = (m, k, n)
    impl = tik_matmul_f16_impl if dtype == "float16" else tik_matmul_s8_impl
    acc = ACC[dtype]
    op = ops.Custom(impl, out_shape=lambda a, b: (_ceil(n, 16), m, 16), out_dtype=lambda a, b: acc,
                    func_type="tbe")
    a_mat, b_mat = operands(m, k, n, dtype)
    a_np, b_np = pack(a_mat, b_mat, dtype)
    out = op(Tensor(a_np), Tensor(b_np)).asnumpy()
    check(out, a_mat, b_mat)


def test_the_tik_manual_matmul_example(soc):
    """The TIK reference's own matmul example: int8 a [2, 32, 32], b [2, 160, 32], m = 30 (fixpipe drops the two
    padding rows), k = 64, n = 160."""
    ti = tik.Tik()
    a_gm = ti.Tensor("int8", [2, 32, 32], name="a_gm", scope=tik.scope_gm)
    b_gm = ti.Tensor("int8", [2, 160, 32], name="b_gm", scope=tik.scope_gm)
    dst_gm = ti.Tensor("int32", [10, 30, 16], name="dst_gm", scope=tik.scope_gm)
    a_l1 = ti.Tensor("int8", [2, 32, 32], name="a_l1", scope=tik.scope_cbuf)
    b_l1 = ti.Tensor("int8", [2, 160, 32], name="b_l1", scope=tik.scope_cbuf)
    dst_l1out = ti.Tensor("int32", [10, 32, 16], name="dst_l1out", scope=tik.scope_cbuf_out)
    ti.data_move(a_l1, a_gm, 0, 1, 64, 0, 0)
    ti.data_move(b_l1, b_gm, 0, 1, 320, 0, 0)
    ti.matmul(dst_l1out, a_l1, b_l1, 30, 64, 160)
    ti.fixpipe(dst_gm, dst_l1out, 10, 60, 0, 0)
    ti.BuildCCE(kernel_name="matmul", inputs=[a_gm, b_gm], outputs=[dst_gm])
    a_mat, b_mat = operands(30, 64, 160, "int8")
    a_np, b_np = pack(a_mat, b_mat, "int8")
    out, = ti.tikdb.start_debug({"a_gm": a_np, "b_gm": b_np}, interactive=False)
    assert out.shape == (10, 30, 16)
    check(out, a_mat, b_mat)
