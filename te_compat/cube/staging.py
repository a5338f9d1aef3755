"""Layout conversions the cube kernel runs on the scalar unit (``tvm_call`` programs) around its main loop.

The main loop reads its operands in the cube's native GM layouts and writes the native output layout:

* A as ``[K1, M1*16, K0]`` (FRACTAL_NZ of A[M, K]), B as ``[K1, N1*16, K0]`` (FRACTAL_NZ of B^T[N, K]),
* C as ``[N1, M1*16, 16]`` (FRACTAL_NZ of C[M, N]),

sizes padded to whole tiles with zeros.  An operand given in another layout (ND, transposed, or not a whole number
of tiles) is first copied into a workspace in the native layout by a scalar program, and a non-native output is
copied from a workspace after the loop: what MindSpore's TransData does around a cube op, here inside the kernel
and priced on the scalar pipe.
"""
from __future__ import annotations

from tvm import te, tirx

from te_compat.dsl.cube import FRACTAL, ND


def _clamp(index, extent: int):
    return tirx.min(index, extent - 1)


def _stored(src, fmt: str, batch, r, c, rows: int, cols: int):
    """Stored element X[r, c] of ``src`` (indices clamped inside the stored extent)."""
    r, c = _clamp(r, rows), _clamp(c, cols)
    if fmt == ND:
        return src[(*batch, r, c)]
    c0 = int(src.shape[-1])
    return src[(*batch, c // c0, r // FRACTAL, r % FRACTAL, c % c0)]


def operand_program(src_shape: tuple, fmt: str, transposed: bool, rows_logical: int, k: int, padded_rows: int,
                    padded_k: int, k0: int, dtype: str, batch: tuple, batched_src: bool):
    """A PrimFunc ``(src, ws)`` writing ``ws[b..., K1, R, K0]`` (R = ``padded_rows``): the logical operand
    ``X[r, k]`` (A[m, k], or B^T[n, k]) of ``src`` stored in ``fmt``; ``transposed`` when ``src`` holds X^T.
    Outside ``rows_logical`` x ``k`` the workspace is zero; ``k0``: elements of one fractal row."""
    src = te.placeholder(src_shape, dtype, "src")
    stored_rows, stored_cols = _extent(src_shape, fmt)

    def value(*idx):
        batch_idx = idx[:len(batch)] if batched_src else ()
        k1, r, kk = idx[len(batch):]
        kx = k1 * k0 + kk
        elem = _stored(src, fmt, batch_idx, kx, r, stored_rows, stored_cols) if transposed else \
            _stored(src, fmt, batch_idx, r, kx, stored_rows, stored_cols)
        return tirx.if_then_else(tirx.all(r < rows_logical, kx < k), elem, tirx.const(0, dtype))

    ws = te.compute((*batch, padded_k // k0, padded_rows, k0), value, name="ws")
    return te.create_prim_func([src, ws])


def _extent(shape: tuple, fmt: str) -> tuple:
    if fmt == ND:
        return shape[-2], shape[-1]
    return shape[-3] * FRACTAL, shape[-4] * shape[-1]


def bias_program(src_shape: tuple, src_dtype: str, n: int, padded_n: int, acc_dtype: str):
    """A PrimFunc ``(bias, ws)``: the first ``n`` bias values in ``acc_dtype``, zero up to ``padded_n``."""
    src = te.placeholder(src_shape, src_dtype, "bias")
    lead = (0,) * (len(src_shape) - 1)
    ws = te.compute((padded_n,), lambda j: tirx.if_then_else(
        j < n, src[(*lead, _clamp(j, src_shape[-1]))].astype(acc_dtype), tirx.const(0, acc_dtype)), name="ws")
    return te.create_prim_func([src, ws])


def output_program(ws_shape: tuple, out_shape: tuple, fmt: str, dtype: str, batch: tuple, m: int, n: int):
    """A PrimFunc ``(ws, out)``: the native ``ws[b..., N1, R, 16]`` tile layout copied into ``out`` (ND
    ``[b..., M, N]`` or FRACTAL_NZ ``[b..., ceil(N/16), ceil(M/16), 16, 16]``, zero outside M x N)."""
    ws = te.placeholder(ws_shape, dtype, "ws")
    nb = len(batch)

    def value(*idx):
        b = idx[:nb]
        if fmt == ND:
            mi, ni = idx[nb:]
            return ws[(*b, ni // FRACTAL, mi, ni % FRACTAL)]
        n1, m1, mr, nr = idx[nb:]
        mi, ni = m1 * FRACTAL + mr, n1 * FRACTAL + nr
        return tirx.if_then_else(tirx.all(mi < m, ni < n), ws[(*b, n1, mi, nr)], tirx.const(0, dtype))

    out = te.compute(out_shape, value, name="out")
    return te.create_prim_func([ws, out])




def gemm_c_program(src_shape: tuple, ws_shape: tuple, dtype: str, m: int, n: int):
    """A PrimFunc ``(c, ws)``: gemm's ND matrix C ``[b..., M, N]`` in the native tile layout ``ws[b..., N1, R, 16]``
    (its own dtype; zero outside M x N)."""
    src = te.placeholder(src_shape, dtype, "c")
    nb = len(src_shape) - 2

    def value(*idx):
        b, (n1, r, c) = idx[:nb], idx[nb:]
        col = n1 * FRACTAL + c
        inside = tirx.all(r < m, col < n)
        return tirx.if_then_else(inside, src[(*b, _clamp(r, m), _clamp(col, n))], tirx.const(0, dtype))

    ws = te.compute(ws_shape, value, name="ws")
    return te.create_prim_func([src, ws])


def im2col_program(data_shape: tuple, geo: dict, padded_m: int, k0: int, dtype: str):
    """A PrimFunc ``(fmap, ws)``: the convolution's A operand ``ws[K1, M, K0]`` from an NC1HWC0 feature map (what
    load3d does): row m = (image, output row, output column), column k = (channel block, kernel row, kernel
    column, channel); zero where the window reads padding and beyond the real rows."""
    fmap = te.placeholder(data_shape, dtype, "fmap")
    kh, kw, ho, wo = geo["kh"], geo["kw"], geo["ho"], geo["wo"]
    rows = geo["n_img"] * ho * wo
    groups, cin1_g = geo["real_g"], geo["cin1_g"]          # a grouped conv: one A per extended group

    def value(*idx):
        group, (k1, m, c) = (idx[0] if groups > 1 else 0), idx[-3:]
        kc1, i, j = group * cin1_g + k1 // (kh * kw), k1 // kw % kh, k1 % kw
        b, y, x = m // (ho * wo), m // wo % ho, m % wo
        row = y * geo["stride_h"] - geo["pad_top"] + i * geo["dilate_h"]
        col = x * geo["stride_w"] - geo["pad_left"] + j * geo["dilate_w"]
        inside = tirx.all(m < rows, row >= 0, row < geo["h"], col >= 0, col < geo["w"], kc1 < geo["c1"])
        pixel = fmap[_clamp(b, geo["n_img"]), _clamp(kc1, geo["c1"]), tirx.max(_clamp(row, geo["h"]), 0),
                     tirx.max(_clamp(col, geo["w"]), 0), c]
        return tirx.if_then_else(inside, pixel, tirx.const(0, dtype))

    batch = (groups,) if groups > 1 else ()
    ws = te.compute((*batch, cin1_g * kh * kw, padded_m, k0), value, name="ws")
    return te.create_prim_func([fmap, ws])


def conv_output_program(ws_shape: tuple, out_shape: tuple, dtype: str, geo: dict):
    """A PrimFunc ``(ws, out)``: the native ``ws[Co1, M, 16]`` (a grouped conv: ``ws[groups, Co1 / groups, M,
    16]``) into the NC1HWC0 result ``[N, Co1, Ho, Wo, 16]``."""
    ws = te.placeholder(ws_shape, dtype, "ws")
    ho, wo, cout1_g = geo["ho"], geo["wo"], geo["cout1_g"]

    def value(b, co1, y, x, c):
        m = (b * ho + y) * wo + x
        return ws[co1 // cout1_g, co1 % cout1_g, m, c] if geo["real_g"] > 1 else ws[co1, m, c]

    out = te.compute(out_shape, value, name="out")
    return te.create_prim_func([ws, out])


__all__ = ["bias_program", "conv_output_program", "gemm_c_program", "im2col_program", "operand_program", "output_program"]
