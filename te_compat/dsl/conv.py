"""``conv`` (te.lang.cce 2020 / tbe.dsl ``conv``): a 2-D convolution on the cube, as an implicit matmul.

``conv(data, weight, para_dict, optim_dict=None, dsl_flag=True)``: ``data`` is the NC1HWC0 feature map
``[N, C1, H, W, C0]``, ``weight`` the FRACTAL_Z filter ``[C1 * kh * kw, Co1, 16, C0]`` (CANN's layouts;
C0 = 16 for float16); ``para_dict`` has ``pad_h`` / ``pad_w`` ([before, after] or one int), ``stride_h`` /
``stride_w``, ``dilate_h`` / ``dilate_w`` (default 1), ``filter_h`` / ``filter_w``, ``res_dtype`` (float16 or
float32; default float16), ``bias_tensor`` (``[Cout]`` or None) and ``group`` (only 1).  The result is NC1HWC0
``[N, Co1, Ho, Wo, 16]``.  As a matmul: M = N * Ho * Wo output pixels, K = C1 * kh * kw * C0 (the filter's own
K order: channel block, then kernel row and column, then the channel inside the block), N = Co1 * 16 output
channels; the node carries :class:`~te_compat.dsl.cube.MatmulDesc` attrs plus the convolution's geometry, and the
cube schedule builds the A operand by im2col (load3d's job on the hardware).  Accumulation in float32.
"""
from __future__ import annotations

from tvm import te, tirx

from npusim.errors import TbeArgumentError, TbeDtypeError, UnsupportedError
from te_compat.dsl.cube import FRACTAL, MATMUL_TAG, ND, NZ

CONV_KIND = "conv2d"


def _pair(value, name: str) -> tuple:
    if isinstance(value, (list, tuple)):
        if len(value) != 2:
            raise TbeArgumentError(f"conv: {name} must be one int or a pair, got {value!r}")
        return int(value[0]), int(value[1])
    return int(value), int(value)


def _geometry(data, weight, para: dict) -> dict:
    n, c1, h, w, c0 = (int(d) for d in data.shape)
    kh, kw = int(para.get("filter_h", 0)), int(para.get("filter_w", 0))
    rows, co1, n0, wc0 = (int(d) for d in weight.shape)
    if kh <= 0 or kw <= 0 or rows != c1 * kh * kw or wc0 != c0 or n0 != FRACTAL:
        raise TbeArgumentError(f"conv: weight {list(weight.shape)} is not the FRACTAL_Z filter of a "
                               f"{kh}x{kw} kernel over {c1} channel blocks of {c0} (expected [{c1 * kh * kw}, Co1, "
                               f"16, {c0}])")
    pad_top, pad_bottom = _pair(para.get("pad_h", 0), "pad_h")
    pad_left, pad_right = _pair(para.get("pad_w", 0), "pad_w")
    stride_h, stride_w = int(para.get("stride_h", 1)), int(para.get("stride_w", 1))
    dilate_h, dilate_w = int(para.get("dilate_h", 1)), int(para.get("dilate_w", 1))
    ho = (h + pad_top + pad_bottom - (kh - 1) * dilate_h - 1) // stride_h + 1
    wo = (w + pad_left + pad_right - (kw - 1) * dilate_w - 1) // stride_w + 1
    if ho < 1 or wo < 1 or min(stride_h, stride_w, dilate_h, dilate_w) < 1:
        raise TbeArgumentError(f"conv: the output would be {ho}x{wo} (strides and dilations must be >= 1)")
    return {"n_img": n, "c1": c1, "h": h, "w": w, "c0": c0, "kh": kh, "kw": kw, "co1": co1, "ho": ho, "wo": wo,
            "pad_top": pad_top, "pad_left": pad_left, "stride_h": stride_h, "stride_w": stride_w,
            "dilate_h": dilate_h, "dilate_w": dilate_w}


def conv(data, weight, para_dict, optim_dict=None, dsl_flag=True):
    """``te.lang.cce.conv``: see the module docstring."""
    para = dict(para_dict or {})
    if int(para.get("group", 1) or 1) != 1:
        raise UnsupportedError("conv: group > 1 is not modelled by npusim's cube path")
    if str(data.dtype) != "float16" or str(weight.dtype) != "float16":
        raise TbeDtypeError(f"conv: data and weight must be float16, got {data.dtype} and {weight.dtype}")
    res_dtype = str(para.get("res_dtype", "float16"))
    if res_dtype not in ("float16", "float32"):
        raise TbeDtypeError(f"conv: res_dtype must be float16 or float32, got {res_dtype!r}")
    g = _geometry(data, weight, para)
    bias = para.get("bias_tensor")
    k_axis = te.reduce_axis((0, g["c1"] * g["kh"] * g["kw"] * g["c0"]), name="k")

    def product(b, co1, y, x, ci):
        kc1 = k_axis // (g["kh"] * g["kw"] * g["c0"])
        i = k_axis // (g["kw"] * g["c0"]) % g["kh"]
        j = k_axis // g["c0"] % g["kw"]
        c = k_axis % g["c0"]
        row = y * g["stride_h"] - g["pad_top"] + i * g["dilate_h"]
        col = x * g["stride_w"] - g["pad_left"] + j * g["dilate_w"]
        inside = tirx.all(row >= 0, row < g["h"], col >= 0, col < g["w"])
        pixel = data[b, kc1, tirx.max(tirx.min(row, g["h"] - 1), 0), tirx.max(tirx.min(col, g["w"] - 1), 0), c]
        value = pixel.astype("float32") * weight[k_axis // g["c0"], co1, ci, c].astype("float32")
        return te.sum(tirx.if_then_else(inside, value, tirx.const(0, "float32")), axis=k_axis)

    shape = (g["n_img"], g["co1"], g["ho"], g["wo"], FRACTAL)
    mmad = te.compute(shape, product, name="conv_mmad", tag="matmul_mmad")

    def finish(b, co1, y, x, ci):
        value = mmad[b, co1, y, x, ci]
        if bias is not None:
            cout = co1 * FRACTAL + ci
            value = value + bias[tirx.min(cout, int(bias.shape[-1]) - 1)].astype("float32")
        return value.astype(res_dtype)

    m, k, n_out = g["n_img"] * g["ho"] * g["wo"], g["c1"] * g["kh"] * g["kw"] * g["c0"], g["co1"] * FRACTAL
    attrs = {"m": m, "k": k, "n": n_out, "batch": [], "trans_a": 0, "trans_b": 1, "format_a": ND,
             "format_b": NZ, "format_out": ND, "in_dtype": "float16", "acc_dtype": "float32", "out_dtype": res_dtype,
             "has_bias": int(bias is not None), "tensor_a": data, "tensor_b": weight, "tensor_mmad": mmad,
             "kind": CONV_KIND, **{f"conv_{key}": value for key, value in g.items()}}
    if bias is not None:
        attrs["tensor_bias"] = bias
    return te.compute(shape, finish, name="conv_res", tag=MATMUL_TAG, attrs=attrs)


__all__ = ["CONV_KIND", "conv"]
