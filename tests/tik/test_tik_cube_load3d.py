"""TIK ``load3dv1`` (img2col) as pooling and conv kernels use it: L1 feature map [C1, H, W, C0] -> UB / L0A
fractals, both repeat modes, padding, strides, dilation, against an img2col written directly in numpy."""
import numpy as np
import pytest
from tbe import tik

from npusim.errors import TikRepeatError, TikScopeError
from test_tik_cube_matmul import check, pack

RNG = np.random.default_rng(5)


def reference(x, geo, q0, repeat, mode, pad_value):
    """Fractals [repeat, 16, C0] of feature map x [C1, H, W, C0]: output pixel q (row-major over Ho x Wo) at
    filter position (c1, fh, fw)."""
    _, h, w, c0 = x.shape
    pl, pr, pt, _ = geo["pad"]
    reach_w = (geo["kw"] - 1) * geo["dw"] + 1
    wo = (w + pl + pr - reach_w) // geo["sw"] + 1
    out = np.empty((repeat, 16, c0), x.dtype)
    for r in range(repeat):
        if mode == 0:
            step = geo["fw"] + r
            fw, rest = step % geo["kw"], geo["fh"] + step // geo["kw"]
            fh, c1 = rest % geo["kh"], geo["c1"] + rest // geo["kh"]
        else:
            fw, fh, c1 = geo["fw"], geo["fh"], geo["c1"]
        for p in range(16):
            q = q0 + p + (r * 16 if mode == 1 else 0)
            ih = (q // wo) * geo["sh"] - pt + fh * geo["dh"]
            iw = (q % wo) * geo["sw"] - pl + fw * geo["dw"]
            inside = 0 <= ih < h and 0 <= iw < w
            out[r, p] = x[c1, ih, iw] if inside else pad_value
    return out


def run_load3d(x, geo, q0, repeat, mode, jump=1, pad_value=0):
    """load3dv1 L1 -> UB starting at output pixel q0, UB -> GM; returns the repeat fractals."""
    dtype = str(x.dtype)
    c1n, h, w, c0 = x.shape
    pl, pr, pt, _ = geo["pad"]
    wo = (w + pl + pr - (geo["kw"] - 1) * geo["dw"] - 1) // geo["sw"] + 1
    left_top_h, left_top_w = (q0 // wo) * geo["sh"] - pt, (q0 % wo) * geo["sw"] - pl
    frac, pitch = 16 * c0, 16 * c0 * (jump if mode == 1 else 1)
    span = (repeat - 1) * pitch + frac
    isz = x.dtype.itemsize
    ti = tik.Tik()
    x_gm = ti.Tensor(dtype, x.shape, name="x", scope=tik.scope_gm)
    y_gm = ti.Tensor(dtype, (span,), name="y", scope=tik.scope_gm)
    x_l1 = ti.Tensor(dtype, x.shape, name="x_l1", scope=tik.scope_cbuf)
    col_ub = ti.Tensor(dtype, (span,), name="col_ub", scope=tik.scope_ubuf)
    ti.data_move(x_l1, x_gm, 0, 1, x.size * isz // 32, 0, 0)
    ti.vec_dup(128, col_ub.reinterpret_cast_to("float16"), 0, span * isz // 256, 8)   # zero the whole UB span
    ti.load3dv1(col_ub, x_l1, geo["pad"], h, w, geo["c1"], geo["fw"], geo["fh"], left_top_w, left_top_h,
                geo["sw"], geo["sh"], geo["kw"], geo["kh"], geo["dw"], geo["dh"], jump, mode, repeat, 0, pad_value)
    ti.data_move(y_gm, col_ub, 0, 1, span * isz // 32, 0, 0)
    ti.BuildCCE(kernel_name="tik_load3d", inputs=[x_gm], outputs=[y_gm])
    y, = ti.tikdb.start_debug({"x": x}, interactive=False)
    return np.stack([y[r * pitch:r * pitch + frac] for r in range(repeat)]).reshape(repeat, 16, c0), y


GEO = {"pad": [1, 1, 1, 1], "kh": 3, "kw": 3, "sh": 1, "sw": 1, "dh": 1, "dw": 1, "c1": 0, "fh": 0, "fw": 0}


def test_mode0_walks_the_filter_positions_of_16_pixels(soc):
    """A 3x3 pooling window over a padded 6x6 map: 9 fractals (one per filter position) for pixels 16..31."""
    x = RNG.standard_normal((1, 6, 6, 16)).astype(np.float16)
    got, _ = run_load3d(x, GEO, 16, 9, 0, pad_value=-65504.0)
    np.testing.assert_array_equal(got, reference(x, GEO, 16, 9, 0, -65504.0))


def test_mode0_advances_into_the_next_channel_block():
    x = RNG.standard_normal((2, 5, 5, 16)).astype(np.float16)
    geo = dict(GEO, pad=[0, 0, 0, 0], kh=2, kw=2, fh=1, fw=1)
    got, _ = run_load3d(x, geo, 0, 3, 0)
    np.testing.assert_array_equal(got, reference(x, geo, 0, 3, 0, 0))


def test_mode1_walks_pixels_with_stride_dilation_padding_and_jump(soc):
    x = RNG.integers(-128, 128, (1, 9, 11, 32)).astype(np.int8)
    geo = {"pad": [2, 1, 1, 0], "kh": 2, "kw": 3, "sh": 2, "sw": 2, "dh": 2, "dw": 2, "c1": 0, "fh": 1, "fw": 2}
    got, raw = run_load3d(x, geo, 5, 3, 1, jump=2, pad_value=7)
    np.testing.assert_array_equal(got, reference(x, geo, 5, 3, 1, 7))
    assert not raw[16 * 32:2 * 16 * 32].any()            # the gap the jump leaves is untouched


def test_conv_through_load3dv1_into_l0a(soc):
    """A 3x3 convolution (stride 1, pad 1) of a 4x4x16 map with 16 filters as TIK's conv2d lowers it: per filter
    position one load3dv1 (repeat_mode 1, jump_offset = K fractals) into L0A, the weights by load2dv1, mmad,
    fixpipe."""
    x = RNG.standard_normal((1, 4, 4, 16)).astype(np.float16)
    wgt = RNG.standard_normal((16, 3, 3, 16)).astype(np.float16)       # [Cout, kh, kw, Cin]
    ti = tik.Tik()
    x_gm = ti.Tensor("float16", (1, 4, 4, 16), name="x", scope=tik.scope_gm)
    w_gm = ti.Tensor("float16", (9, 16, 16), name="w", scope=tik.scope_gm)      # [K1 = kh*kw, Cout, C0]
    y_gm = ti.Tensor("float32", (1, 16, 16), name="y", scope=tik.scope_gm)      # [Cout1, HoWo, 16]
    x_l1 = ti.Tensor("float16", (1, 4, 4, 16), name="x_l1", scope=tik.scope_cbuf)
    w_l1 = ti.Tensor("float16", (9, 16, 16), name="w_l1", scope=tik.scope_cbuf)
    a_l0 = ti.Tensor("float16", (1, 9, 16, 16), name="a_l0", scope=tik.scope_ca)
    b_l0 = ti.Tensor("float16", (9, 1, 16, 16), name="b_l0", scope=tik.scope_cb)
    c_l0 = ti.Tensor("float32", (1, 16, 16), name="c_l0", scope=tik.scope_cbuf_out)
    ti.data_move(x_l1, x_gm, 0, 1, 16, 0, 0)
    ti.data_move(w_l1, w_gm, 0, 1, 144, 0, 0)
    with ti.for_range(0, 9) as k:
        ti.load3dv1(a_l0[k * 256], x_l1, [1, 1, 1, 1], 4, 4, 0, k % 3, k // 3, -1, -1, 1, 1, 3, 3, 1, 1, 9, 1, 1)
    ti.load2dv1(b_l0, w_l1, 0, 9, 1, 0)
    ti.mmad(c_l0, a_l0, b_l0, 16, 144, 16, 0)
    ti.fixpipe(y_gm, c_l0, 1, 16 * 16 * 4 // 32, 0, 0)
    ti.BuildCCE(kernel_name="tik_conv_load3d", inputs=[x_gm, w_gm], outputs=[y_gm])
    w_frac = np.ascontiguousarray(wgt.reshape(16, 9, 16).transpose(1, 0, 2))
    y, = ti.tikdb.start_debug({"x": x, "w": w_frac}, interactive=False)
    padded = np.zeros((6, 6, 16), np.float32)
    padded[1:5, 1:5] = x[0]
    cols = np.stack([padded[i:i + 3, j:j + 3].reshape(-1) for i in range(4) for j in range(4)])   # [16, 144]
    a_mat, b_mat = cols.astype(np.float16), wgt.reshape(16, 144).T
    check(y, a_mat, b_mat)


def test_load3dv1_checks():
    ti = tik.Tik()
    x_l1 = ti.Tensor("float16", (1, 4, 4, 16), name="x_l1", scope=tik.scope_cbuf)
    ub = ti.Tensor("float16", (256,), name="ub", scope=tik.scope_ubuf)
    with pytest.raises(TikRepeatError, match=r"repeat_times should be in the range of \[1, 255\]"):
        ti.load3dv1(ub, x_l1, [0, 0, 0, 0], 4, 4, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 0, 256)
    with pytest.raises(TikScopeError, match="src's scope should be L1, but src's scope is scope_ubuf"):
        ti.load3dv1(ub, ub, [0, 0, 0, 0], 4, 4, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 0, 1)
