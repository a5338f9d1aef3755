"""aclnnAvgPool2d(self, kernelSize, strides, paddings: int_array, ceilMode, countIncludePad: bool,
divisorOverride: int, cubeMathType: int (int8), out): average pooling over the last two dimensions of a
(N, C, H, W) or (C, H, W) float16/float32 tensor, PyTorch's ``avg_pool2d``.

``kernelSize`` / ``paddings`` have 1 or 2 values, ``strides`` 0 (= the kernel), 1 or 2; a padding is at most half
its kernel.  ``divisorOverride`` 0 means none; ``cubeMathType`` (0 KEEP_DTYPE, 1 ALLOW_FP32_DOWN_PRECISION,
2 USE_FP16, 3 USE_HF32) selects the cube unit's precision on hardware and does not change npusim's float32
accumulation.  The windows run on the scalar pipe.
"""
from __future__ import annotations

from npusim.aclnn import graph
from npusim.aclnn.op import Op
from npusim.aclnn.params import params
from npusim.aclnn.scalar_pipe import cast_expr, run_te

_FLOATS = ("float32", "float16")
_CUBE_MATH_TYPES = range(4)


def _pair(inv, name: str, allow_empty_as=None) -> tuple:
    values = list(inv[name])
    if not values and allow_empty_as is not None:
        return allow_empty_as
    if len(values) not in (1, 2):
        raise inv.fail(name, f"{values} must have 1 or 2 values")
    return (values[0], values[0]) if len(values) == 1 else tuple(values)


def pooled_size(size: int, kernel: int, stride: int, pad: int, ceil: bool) -> int:
    """PyTorch's pooling output size (dilation 1)."""
    out = (size + 2 * pad - kernel + (stride - 1 if ceil else 0)) // stride + 1
    if ceil and (out - 1) * stride >= size + pad:
        out -= 1
    return out


def _check(inv) -> tuple:
    src = inv["self"]
    if len(src.shape) not in (3, 4):
        raise inv.fail("self", f"shape {list(src.shape)} must be 3-D (C, H, W) or 4-D (N, C, H, W)")
    for name in ("self", "out"):
        if inv[name].dtype not in _FLOATS:
            raise inv.unsupported(name, f"dtype {inv[name].dtype}: npusim runs {inv.api} on float16 / float32")
    kernel = _pair(inv, "kernelSize")
    stride = _pair(inv, "strides", kernel)
    pad = _pair(inv, "paddings")
    if min(kernel) <= 0 or min(stride) <= 0:
        raise inv.fail("kernelSize" if min(kernel) <= 0 else "strides", "values must be positive")
    if min(pad) < 0 or any(p > k // 2 for p, k in zip(pad, kernel)):
        raise inv.fail("paddings", f"{list(pad)} must be non-negative and at most half the kernel {list(kernel)}")
    if inv["divisorOverride"] < 0:
        raise inv.fail("divisorOverride", f"{inv['divisorOverride']} must be 0 (none) or positive")
    if inv["cubeMathType"] not in _CUBE_MATH_TYPES:
        raise inv.fail("cubeMathType", f"{inv['cubeMathType']} is not a cube math type (0..3)")
    height, width = src.shape[-2:]
    ceil = inv["ceilMode"]
    out_hw = (pooled_size(height, kernel[0], stride[0], pad[0], ceil),
              pooled_size(width, kernel[1], stride[1], pad[1], ceil))
    if min(out_hw) <= 0:
        raise inv.fail("self", f"spatial size {[height, width]} is too small for kernel {list(kernel)}")
    graph.check_out_shape(inv, "out", src.shape[:-2] + out_hw)
    return kernel, stride, pad


def _avg_pool(inv):
    kernel, stride, pad = _check(inv)
    src, out = inv["self"], inv["out"]
    attrs = (kernel, stride, pad, inv["countIncludePad"], inv["divisorOverride"])
    run_te(inv, ("avg_pool2d",) + attrs + (out.dtype, out.shape), {"self": src}, [out],
           lambda places: [_pool_compute(places[0], out.shape, out.dtype, *attrs)], "averages pooling windows")


def _pool_compute(place, out_shape, dtype: str, kernel, stride, pad, include_pad: bool, divisor_override: int):
    from tvm import te, tirx
    height, width = (int(d) for d in place.shape[-2:])
    kh = te.reduce_axis((0, kernel[0]), name="kh")
    kw = te.reduce_axis((0, kernel[1]), name="kw")

    def window_sum(lead, oh, ow):
        h, w = oh * stride[0] - pad[0] + kh, ow * stride[1] - pad[1] + kw
        inside = tirx.all(h >= 0, h < height, w >= 0, w < width)
        safe = place[tuple(lead) + (tirx.min(tirx.max(h, 0), height - 1), tirx.min(tirx.max(w, 0), width - 1))]
        value = tirx.Select(inside, cast_expr(safe, str(place.dtype), "float32"), tirx.const(0.0, "float32"))
        return te.sum(value, axis=[kh, kw])

    def divisor(oh, ow):
        if divisor_override:
            return tirx.const(float(divisor_override), "float32")
        spans = []
        for o, s, p, size, k in ((oh, stride[0], pad[0], height, kernel[0]), (ow, stride[1], pad[1], width, kernel[1])):
            start = o * s - p
            end = tirx.min(start + k, size + p)
            spans.append(end - start if include_pad else tirx.min(end, size) - tirx.max(start, 0))
        return (spans[0] * spans[1]).astype("float32")

    sums = te.compute(tuple(out_shape), lambda *i: window_sum(i[:-2], i[-2], i[-1]), name="window_sum")
    return te.compute(tuple(out_shape), lambda *i: cast_expr(sums[i] / divisor(i[-2], i[-1]), "float32", dtype),
                      name="out")


OPS = (
    Op("aclnnAvgPool2d", params("self:tensor", "kernelSize:int_array", "strides:int_array", "paddings:int_array",
                                "ceilMode:bool", "countIncludePad:bool", "divisorOverride:int", "cubeMathType:int",
                                "out:tensor!", dtypes=("float32", "float16", "bfloat16")), _avg_pool,
       "2-D average pooling", pipe="scalar"),
)

__all__ = ["OPS", "pooled_size"]
