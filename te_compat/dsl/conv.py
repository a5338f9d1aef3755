"""``conv`` (te.lang.cce 2020 / tbe.dsl ``conv``): a 2-D convolution on the cube, as an implicit matmul.

``conv(data, weight, para_dict, optim_dict=None, dsl_flag=True)``: ``data`` is the NC1HWC0 feature map
``[N, C1, H, W, C0]``, ``weight`` the FRACTAL_Z filter ``[C1 * kh * kw, Co1, 16, C0]`` (CANN's layouts;
C0 = 16 for float16, 32 for int8); ``para_dict`` has ``pad_h`` / ``pad_w`` ([before, after] or one int),
``stride_h`` / ``stride_w``, ``dilate_h`` / ``dilate_w`` (default 1), ``filter_h`` / ``filter_w``, ``res_dtype``
(float16 data: float16 or float32, default float16; int8 data: int32), ``bias_tensor`` (``[Cout]`` or None),
``group`` (default 1) and, for a grouped convolution, optionally ``group_dict``.  The result is NC1HWC0
``[N, Co1, Ho, Wo, 16]``.  As a matmul: M = N * Ho * Wo output pixels, K = C1 * kh * kw * C0 (the filter's own K
order: channel block, then kernel row and column, then the channel inside the block), N = Co1 * 16 output
channels; the node carries :class:`~te_compat.dsl.cube.MatmulDesc` attrs plus the convolution's geometry, and the
cube schedule gathers the A operand by load3d (or builds it by a staged im2col:
:mod:`te_compat.cube.conv_load3d`).  Accumulation in float32 (int8 data: int32, exact).

Groups.  CANN 2020 has none: ``te.lang.cce.conv`` reads no group key, its conv2d op takes ``groups`` and ignores it,
and its ``check_conv_shape`` rejects a filter with fewer channels than the feature map.  Later CANN (and so this
shared te.lang.cce / tbe.dsl function) takes ``para_dict["group"]`` with the filter in the grouped FRACTAL_Z layout
MindSpore's TransData makes for it: ``mag`` = min(lcm(lcm(cin_g, C0) / cin_g, lcm(cout_g, 16) / cout_g), groups)
groups (cin_g / cout_g channels each) share one "extended" group, ``real_g`` = ceil(groups / mag) of those, each
``cin1_g`` = ceil(mag * cin_g / C0) channel blocks by ``cout1_g`` = ceil(mag * cout_g / 16) column fractals, block
diagonal: ``[real_g * cin1_g * kh * kw, cout1_g, 16, C0]``.  Each extended group is one cube matmul (a batch of
``real_g``): its A is the im2col of its own channel blocks, its result the output channel blocks
``[g * cout1_g, (g + 1) * cout1_g)``.  ``group_dict`` (CANN's keys ``real_g``, ``mag_factor``, ``cin1_g``,
``cout_g``, ``cin_ori``, ``cout_ori``) gives those numbers; without it they come from ``group`` and the
placeholders' ``ori_shape`` attrs (the feature map's NCHW and the filter's [Cout, Cin / groups, kh, kw]).
"""
from __future__ import annotations

import math

from tvm import te, tirx

from npusim.errors import TbeArgumentError, TbeDtypeError
from te_compat.dsl.cube import FRACTAL, MATMUL_TAG, ND, NZ, ceil_div

CONV_KIND = "conv2d"
#: input dtype -> the cube's accumulator dtype and the result dtypes (the first the default)
_ACC_OF = {"float16": "float32", "int8": "int32"}
_RES = {"float16": ("float16", "float32"), "int8": ("int32",)}


def _pair(value, name: str) -> tuple:
    if isinstance(value, (list, tuple)):
        if len(value) != 2:
            raise TbeArgumentError(f"conv: {name} must be one int or a pair, got {value!r}")
        return int(value[0]), int(value[1])
    return int(value), int(value)


def _ori(tensor, position: int):
    """Entry ``position`` of a placeholder's ``ori_shape`` attr (None when it has none)."""
    attrs = getattr(tensor.op, "attrs", None) or {}
    if "ori_shape" not in attrs or len(attrs["ori_shape"]) != 4:
        return None
    return int(attrs["ori_shape"][position])


def _group_numbers(data, weight, para: dict, groups: int, c0: int) -> dict:
    """(real_g, cin1_g, cout1_g, cout) of a grouped convolution (see the module docstring)."""
    given = para.get("group_dict")
    if given:
        cout = int(given["cout_ori"]) * groups
        return {"real_g": int(given["real_g"]), "cin1_g": int(given["cin1_g"]),
                "cout1_g": ceil_div(int(given["cout_g"]), FRACTAL), "cout": cout}
    cin, cout = _ori(data, 1), _ori(weight, 0)
    if cin is None or cout is None:
        raise TbeArgumentError(f"conv: group={groups} needs para_dict['group_dict'] or the feature map's and the "
                               f"filter's ori_shape attrs (NCHW) to size the groups")
    if cin % groups or cout % groups:
        raise TbeArgumentError(f"conv: the input channels ({cin}) and output channels ({cout}) must both be "
                               f"multiples of groups ({groups})")
    cin_g, cout_g = cin // groups, cout // groups
    mag = min(math.lcm(math.lcm(cin_g, c0) // cin_g, math.lcm(cout_g, FRACTAL) // cout_g), groups)
    return {"real_g": ceil_div(groups, mag), "cin1_g": ceil_div(mag * cin_g, c0),
            "cout1_g": ceil_div(mag * cout_g, FRACTAL), "cout": cout}


def _groups(data, weight, para: dict, kh: int, kw: int) -> dict:
    """The group numbers of ``para`` (one group: the whole filter)."""
    groups = para.get("group", 1)
    groups = 1 if groups is None else groups
    if not isinstance(groups, int) or isinstance(groups, bool) or groups < 1:
        raise TbeArgumentError(f"conv: group must be a positive int, got {groups!r}")
    _, c1, _, _, c0 = (int(d) for d in data.shape)
    rows, co1 = int(weight.shape[0]), int(weight.shape[1])
    if groups == 1:
        return {"groups": 1, "real_g": 1, "cin1_g": c1, "cout1_g": co1, "co1": co1}
    numbers = _group_numbers(data, weight, para, groups, c0)
    real_g, cin1_g, cout1_g = numbers["real_g"], numbers["cin1_g"], numbers["cout1_g"]
    if rows != real_g * cin1_g * kh * kw or co1 != cout1_g:
        raise TbeArgumentError(f"conv: weight {list(weight.shape)} is not the grouped FRACTAL_Z filter of "
                               f"{groups} groups of a {kh}x{kw} kernel (expected [{real_g * cin1_g * kh * kw}, "
                               f"{cout1_g}, 16, {c0}]: {real_g} extended groups of {cin1_g} channel blocks)")
    return {"groups": groups, "real_g": real_g, "cin1_g": cin1_g, "cout1_g": cout1_g,
            "co1": ceil_div(numbers["cout"], FRACTAL)}


def _geometry(data, weight, para: dict) -> dict:
    n, c1, h, w, c0 = (int(d) for d in data.shape)
    kh, kw = int(para.get("filter_h", 0)), int(para.get("filter_w", 0))
    rows, _, n0, wc0 = (int(d) for d in weight.shape)
    if kh <= 0 or kw <= 0 or wc0 != c0 or n0 != FRACTAL or (para.get("group", 1) in (1, None) and
                                                            rows != c1 * kh * kw):
        raise TbeArgumentError(f"conv: weight {list(weight.shape)} is not the FRACTAL_Z filter of a "
                               f"{kh}x{kw} kernel over {c1} channel blocks of {c0} (expected [{c1 * kh * kw}, Co1, "
                               f"16, {c0}])")
    grouping = _groups(data, weight, para, kh, kw)
    pad_top, pad_bottom = _pair(para.get("pad_h", 0), "pad_h")
    pad_left, pad_right = _pair(para.get("pad_w", 0), "pad_w")
    stride_h, stride_w = int(para.get("stride_h", 1)), int(para.get("stride_w", 1))
    dilate_h, dilate_w = int(para.get("dilate_h", 1)), int(para.get("dilate_w", 1))
    ho = (h + pad_top + pad_bottom - (kh - 1) * dilate_h - 1) // stride_h + 1
    wo = (w + pad_left + pad_right - (kw - 1) * dilate_w - 1) // stride_w + 1
    if ho < 1 or wo < 1 or min(stride_h, stride_w, dilate_h, dilate_w) < 1:
        raise TbeArgumentError(f"conv: the output would be {ho}x{wo} (strides and dilations must be >= 1)")
    return {"n_img": n, "c1": c1, "h": h, "w": w, "c0": c0, "kh": kh, "kw": kw, "ho": ho, "wo": wo,
            "pad_top": pad_top, "pad_left": pad_left, "stride_h": stride_h, "stride_w": stride_w,
            "dilate_h": dilate_h, "dilate_w": dilate_w, **grouping}


def conv(data, weight, para_dict, optim_dict=None, dsl_flag=True):
    """``te.lang.cce.conv``: see the module docstring."""
    para = dict(para_dict or {})
    in_dtype = str(data.dtype)
    if in_dtype not in _RES or str(weight.dtype) != in_dtype:
        raise TbeDtypeError(f"conv: data and weight must both be float16 or both int8, got {data.dtype} and "
                            f"{weight.dtype}")
    acc = _ACC_OF[in_dtype]
    res_dtype = str(para.get("res_dtype", _RES[in_dtype][0]))
    if res_dtype not in _RES[in_dtype]:
        raise TbeDtypeError(f"conv: res_dtype of {in_dtype} data must be one of {list(_RES[in_dtype])}, got "
                            f"{res_dtype!r}")
    g = _geometry(data, weight, para)
    bias = para.get("bias_tensor")
    k_rows = g["cin1_g"] * g["kh"] * g["kw"]          # one (extended) group's filter rows
    k_axis = te.reduce_axis((0, k_rows * g["c0"]), name="k")

    def product(b, co1, y, x, ci):
        group, column = co1 // g["cout1_g"], co1 % g["cout1_g"]      # extended group: one cube matmul each
        block = group * g["cin1_g"] + k_axis // (g["kh"] * g["kw"] * g["c0"])     # its feature-map channel block
        i = k_axis // (g["kw"] * g["c0"]) % g["kh"]
        j = k_axis // g["c0"] % g["kw"]
        c = k_axis % g["c0"]
        row = y * g["stride_h"] - g["pad_top"] + i * g["dilate_h"]
        col = x * g["stride_w"] - g["pad_left"] + j * g["dilate_w"]
        inside = tirx.all(row >= 0, row < g["h"], col >= 0, col < g["w"], block < g["c1"])
        pixel = data[b, tirx.min(block, g["c1"] - 1), tirx.max(tirx.min(row, g["h"] - 1), 0),
                     tirx.max(tirx.min(col, g["w"] - 1), 0), c]
        tap = weight[group * k_rows + k_axis // g["c0"], column, ci, c]
        value = pixel.astype(acc) * tap.astype(acc)
        return te.sum(tirx.if_then_else(inside, value, tirx.const(0, acc)), axis=k_axis)

    shape = (g["n_img"], g["co1"], g["ho"], g["wo"], FRACTAL)
    mmad = te.compute(shape, product, name="conv_mmad", tag="matmul_mmad")

    def finish(b, co1, y, x, ci):
        value = mmad[b, co1, y, x, ci]
        if bias is not None:
            cout = co1 * FRACTAL + ci
            value = value + bias[tirx.min(cout, int(bias.shape[-1]) - 1)].astype(acc)
        return value.astype(res_dtype)

    m, k, n_out = g["n_img"] * g["ho"] * g["wo"], k_rows * g["c0"], g["cout1_g"] * FRACTAL
    batch = [g["real_g"]] if g["real_g"] > 1 else []       # the extended groups: a batch of matmuls
    attrs = {"m": m, "k": k, "n": n_out, "batch": batch, "trans_a": 0, "trans_b": 1, "format_a": ND,
             "format_b": NZ, "format_out": ND, "in_dtype": in_dtype, "acc_dtype": acc, "out_dtype": res_dtype,
             "has_bias": int(bias is not None), "tensor_a": data, "tensor_b": weight, "tensor_mmad": mmad,
             "kind": CONV_KIND, **{f"conv_{key}": value for key, value in g.items()}}
    if bias is not None:
        attrs["tensor_bias"] = bias
    return te.compute(shape, finish, name="conv_res", tag=MATMUL_TAG, attrs=attrs)


__all__ = ["CONV_KIND", "conv"]
