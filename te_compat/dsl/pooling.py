"""``pooling2d`` (te.lang.cce 2020 / tbe.dsl): max / average pooling of an NC1HWC0 feature map.

``pooling2d(tensor_in, window, stride, pooling_mode, padding_mode="SAME", pad=(0, 0, 0, 0), dilation=(1, 1),
data_mode=1, ceil_mode=0, fusion_params=None, impl_mode="high_performance")``: ``tensor_in`` is
``[N, C1, H, W, C0]``; ``pooling_mode`` "MAX" / "AVG" (window ``window`` = (kh, kw), strides ``stride``) or
"GMP" / "GAP" (global: the window is the whole H x W); ``padding_mode`` "VALID" (no padding, output
``ceil((H - kh + 1) / sh)``), "SAME" (output ``ceil(H / sh)``, the padding split with the smaller half on top /
left) or "CALCULATED" (``pad`` = (top, bottom, left, right); output ``floor`` or, with ``ceil_mode`` 1, ``ceil`` of
``(H + top + bottom - kh) / sh`` + 1).  MAX ignores padding; AVG divides by the window elements inside the input
(TensorFlow's SAME convention).  float16 in and out.

``auto_schedule`` of a MAX / AVG / GMP pooling of a placeholder uses the vector schedule of
:mod:`te_compat.pooling` (per-tap vmax / vadd over C0 blocks of a padded UB tile, as CANN's pooling schedule):
MAX there equals this compute exactly; AVG follows the chip's order (a float16 sum rounded after every tap, then a
multiply by float16(1 / taps inside the input)), where the compute below, which the scalar-pipe fallback evaluates
(GAP, fused graphs, tiles that do not fit UB), sums in float32 and rounds once.  The output node carries the
parameters as ``pool_*`` attrs for that schedule.
"""
from __future__ import annotations

from tvm import te, tirx

from npusim.errors import TbeArgumentError, TbeDtypeError

_MODES = ("MAX", "AVG", "GMP", "GAP")


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def _output_and_pads(size: int, window: int, stride: int, mode: str, pads: tuple, ceil_mode: int) -> tuple:
    """(output size, padding before) along one axis."""
    if mode == "VALID":
        return _ceil_div(size - window + 1, stride), 0
    if mode == "SAME":
        out = _ceil_div(size, stride)
        total = max((out - 1) * stride + window - size, 0)
        return out, total // 2
    if mode == "CALCULATED":
        span = size + pads[0] + pads[1] - window
        out = (_ceil_div(span, stride) if ceil_mode else span // stride) + 1
        return out, pads[0]
    raise TbeArgumentError(f"pooling2d: padding_mode must be VALID, SAME or CALCULATED, got {mode!r}")


def pooling2d(tensor_in, window, stride, pooling_mode, padding_mode="SAME", pad=(0, 0, 0, 0), dilation=(1, 1),
              data_mode=1, ceil_mode=0, fusion_params=None, impl_mode="high_performance"):
    """``te.lang.cce.pooling2d``: see the module docstring."""
    mode = str(pooling_mode).upper()
    if mode not in _MODES:
        raise TbeArgumentError(f"pooling2d: pooling_mode must be one of {list(_MODES)}, got {pooling_mode!r}")
    if str(tensor_in.dtype) != "float16":
        raise TbeDtypeError(f"pooling2d: tensor_in must be float16, got {tensor_in.dtype}")
    shape = [int(d) for d in tensor_in.shape]
    if len(shape) != 5:
        raise TbeArgumentError(f"pooling2d: tensor_in must be NC1HWC0 (5-D), got {shape}")
    n, c1, h, w, c0 = shape
    if mode in ("GMP", "GAP"):
        window, stride, padding_mode = (h, w), (1, 1), "VALID"
    kh, kw = (int(v) for v in window)
    sh, sw = (int(v) for v in stride)
    if kh < 1 or kw < 1 or sh < 1 or sw < 1:
        raise TbeArgumentError(f"pooling2d: window {list(window)} and stride {list(stride)} must be positive")
    pads = tuple(int(v) for v in pad)
    ho, top = _output_and_pads(h, kh, sh, str(padding_mode).upper(), pads[:2], ceil_mode)
    wo, left = _output_and_pads(w, kw, sw, str(padding_mode).upper(), pads[2:], ceil_mode)
    if ho < 1 or wo < 1:
        raise TbeArgumentError(f"pooling2d: the output would be {ho}x{wo}")
    ri, rj = te.reduce_axis((0, kh), name="ri"), te.reduce_axis((0, kw), name="rj")
    # read back by the vector schedule (te_compat.pooling.plan.read_params)
    attrs = {"pool_mode": mode, "pool_input": shape, "pool_window": [kh, kw], "pool_stride": [sh, sw],
             "pool_pads": [top, left], "pool_out": [ho, wo]}

    def position(y, x):
        row, col = y * sh - top + ri, x * sw - left + rj
        inside = tirx.all(row >= 0, row < h, col >= 0, col < w)
        return tirx.max(tirx.min(row, h - 1), 0), tirx.max(tirx.min(col, w - 1), 0), inside

    out_shape = (n, c1, ho, wo, c0)
    if mode in ("MAX", "GMP"):
        def window_max(b, c, y, x, ci):
            row, col, inside = position(y, x)
            lowest = tirx.min_value("float16")
            return te.max(tirx.if_then_else(inside, tensor_in[b, c, row, col, ci], lowest), axis=[ri, rj])
        return te.compute(out_shape, window_max, name="pooling2d_max", tag="pooling2d_max", attrs=attrs)

    def window_sum(b, c, y, x, ci):
        row, col, inside = position(y, x)
        value = tensor_in[b, c, row, col, ci].astype("float32")
        return te.sum(tirx.if_then_else(inside, value, tirx.const(0, "float32")), axis=[ri, rj])

    total = te.compute(out_shape, window_sum, name="pooling2d_sum", tag="pooling2d_avg_sum")

    def average(b, c, y, x, ci):
        rows = tirx.min(y * sh - top + kh, h) - tirx.max(y * sh - top, 0)
        cols = tirx.min(x * sw - left + kw, w) - tirx.max(x * sw - left, 0)
        return (total[b, c, y, x, ci] / (rows * cols).astype("float32")).astype("float16")
    return te.compute(out_shape, average, name="pooling2d_avg", tag="pooling2d_avg", attrs=attrs)


__all__ = ["pooling2d"]
