"""``load3d``: img2col from a feature map in L1 into L0A (or UB), one 16-row fractal per repeat (TIK ``load3dv1``).

The source is a feature map ``[C1, l1_h, l1_w, C0]`` (C0 = one block of elements) starting at the src operand.  A
fractal row is one output pixel: the C0 channels of input pixel (h + fetch_filter_h * dilation_h,
w + fetch_filter_w * dilation_w) of channel block c1, where (h, w) is the top-left corner of that pixel's window;
a read outside the feature map (the padding) gives ``pad_value``.  Window corners start at (left_top_h,
left_top_w) and slide right by stride_w; a window that would reach past the right padding (w + dilated filter
width > l1_w + pad_right) wraps to w = -pad_left one stride_h lower.  ``repeat_mode`` 0: every repeat takes the
same 16 windows at the next filter position (fetch_filter_w advances, then fetch_filter_h, then c1), the
fractals contiguous; ``repeat_mode`` 1: every repeat takes the next 16 windows at the same filter position, the
fractals ``jump_offset`` fractals apart.  Pads are [left, right, top, bottom] as separate operands.

This is the model TIK's conv2d and public pooling kernels (L1 -> UB img2col) rely on; the hardware's field
widths are not all published: npusim checks repeat_time in [0, 255], strides, filter sizes, dilations and the
jump >= 1, repeat_mode in {0, 1}, alignment (dst: one fractal in L0A, one block in UB; src one block) and that
every byte read or written lies in its buffer.  Priced as a move of repeat_time fractals on the chip's path.
"""
from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import as_strided

from npusim.errors.sim import InvalidOperandError
from npusim.sim.checks import check_access, check_aligned, check_int_range
from npusim.sim.expr import Const
from npusim.sim.geometry import LOAD3D_REPEAT_MAX
from npusim.sim.isa.context import CompileContext
from npusim.sim.isa.spec import CompiledInstr, InstrSpec, InstrStatic, OperandSpec

_DEFAULTS = {"pad_left": 0, "pad_right": 0, "pad_top": 0, "pad_bottom": 0, "l1_h": None, "l1_w": None,
             "c1_index": 0, "fetch_filter_w": 0, "fetch_filter_h": 0, "left_top_w": 0, "left_top_h": 0,
             "stride_w": 1, "stride_h": 1, "filter_w": 1, "filter_h": 1, "dilation_filter_w": 1,
             "dilation_filter_h": 1, "jump_offset": 1, "repeat_mode": 0, "repeat_time": None}
OPERANDS = (OperandSpec("dst", "tensor"), OperandSpec("src", "tensor")) + tuple(
    OperandSpec(name, "int") if default is None else OperandSpec(name, "int", default)
    for name, default in _DEFAULTS.items()) + (OperandSpec("pad_value", "scalar", 0),)
_AT_LEAST_ONE = ("l1_h", "l1_w", "stride_w", "stride_h", "filter_w", "filter_h", "dilation_filter_w",
                 "dilation_filter_h", "jump_offset")
_NOT_NEGATIVE = ("pad_left", "pad_right", "pad_top", "pad_bottom", "c1_index", "fetch_filter_w", "fetch_filter_h")
TARGETS = ("L0A", "UB")


def _check(site, values: dict, names=None) -> dict:
    """Range checks of the fields ``names`` of ``values`` (None: all of them)."""
    for name in _AT_LEAST_ONE:
        if names is None or name in names:
            check_int_range(site, name, values[name], 1, 1 << 31)
    for name in _NOT_NEGATIVE:
        if names is None or name in names:
            check_int_range(site, name, values[name], 0, 1 << 31)
    if names is None or "repeat_time" in names:
        check_int_range(site, "repeat_time", values["repeat_time"], 0, LOAD3D_REPEAT_MAX)
    if names is None or "repeat_mode" in names:
        check_int_range(site, "repeat_mode", values["repeat_mode"], 0, 1)
    return values


def windows(v: dict, count: int) -> tuple:
    """(h, w) top-left corners of ``count`` consecutive windows from (left_top_h, left_top_w)."""
    reach = (v["filter_w"] - 1) * v["dilation_filter_w"] + 1
    right = v["l1_w"] + v["pad_right"] - reach           # the last corner column a window may take
    first_row = max((right - v["left_top_w"]) // v["stride_w"] + 1, 1)
    per_row = max((right + v["pad_left"]) // v["stride_w"] + 1, 1)
    q = np.arange(count)
    later = np.maximum(q - first_row, 0)
    in_first = q < first_row
    h = np.where(in_first, v["left_top_h"], v["left_top_h"] + (1 + later // per_row) * v["stride_h"])
    w = np.where(in_first, v["left_top_w"] + q * v["stride_w"], -v["pad_left"] + (later % per_row) * v["stride_w"])
    return h, w


def gather_plan(v: dict, rows: int) -> tuple:
    """(pixel index [repeat, rows], inside mask) of every fractal row: pixel = (c1 * l1_h + ih) * l1_w + iw."""
    repeat = v["repeat_time"]
    if v["repeat_mode"] == 0:
        h, w = (x[None, :] for x in windows(v, rows))
        step = v["fetch_filter_w"] + np.arange(repeat)
        fw = step % v["filter_w"]
        fh_all = v["fetch_filter_h"] + step // v["filter_w"]
        fh, c1 = fh_all % v["filter_h"], v["c1_index"] + fh_all // v["filter_h"]
        fw, fh, c1 = fw[:, None], fh[:, None], c1[:, None]
    else:
        h, w = (x.reshape(repeat, rows) for x in windows(v, rows * repeat))
        fw, fh, c1 = v["fetch_filter_w"], v["fetch_filter_h"], v["c1_index"]
    ih, iw = h + fh * v["dilation_filter_h"], w + fw * v["dilation_filter_w"]
    inside = (ih >= 0) & (ih < v["l1_h"]) & (iw >= 0) & (iw < v["l1_w"])
    pixel = (c1 * v["l1_h"] + np.clip(ih, 0, v["l1_h"] - 1)) * v["l1_w"] + np.clip(iw, 0, v["l1_w"] - 1)
    return np.broadcast_to(pixel, (repeat, rows)), np.broadcast_to(inside, (repeat, rows))


def compile_load3d(instr, spec, kc: CompileContext) -> CompiledInstr:
    site = kc.site
    dst = kc.tensor("dst", instr.arg("dst"), TARGETS)
    src = kc.tensor("src", instr.arg("src"), ("L1",))
    if dst.dtype != src.dtype:
        raise kc.fail(InvalidOperandError, f"load3d needs equal dtypes, got dst {dst.dtype} and src {src.dtype}")
    path = kc.chip.paths.get((src.space, dst.space))
    if path is None:
        raise kc.fail(InvalidOperandError, f"load3d {src.space}->{dst.space} is not a path on {kc.chip.name}")
    block, rows = kc.chip.block_bytes, kc.chip.cube_m
    c0 = kc.chip.block_elems(dst.isz)
    frac = rows * c0
    dst_align = rows * block if dst.space == "L0A" else block
    kc.check_static_alignment(dst, dst_align)
    kc.check_static_alignment(src)
    fields = {name: kc.expr(instr.arg(name, default)) for name, default in _DEFAULTS.items()}
    # the constant fields are checked once here; a run evaluates and checks the others only
    fixed = {n: f.value for n, f in fields.items() if isinstance(f, Const)}
    dynamic = tuple((n, f) for n, f in fields.items() if not isinstance(f, Const))
    moving = frozenset(n for n, _ in dynamic)
    _check(site, {**{n: 1 for n in moving}, **fixed}, frozenset(fixed))
    pad_value = kc.expr(instr.arg("pad_value", 0))
    out_dt = np.dtype(dst.dtype)
    index = site.instr_index

    def run(ctx):
        env = ctx.env
        v = dict(fixed)
        for name, f in dynamic:
            v[name] = f(env)
        if moving:
            _check(site, v, moving)
        repeat = v["repeat_time"]
        if repeat:
            pixel, inside = gather_plan(v, rows)
            s0 = _start(ctx, site, src, block)
            d0 = _start(ctx, site, dst, dst_align)
            pitch = frac * (v["jump_offset"] if v["repeat_mode"] else 1)
            _bounds(site, dst, d0, d0 + (repeat - 1) * pitch + frac - 1)
            used = pixel[inside]
            if used.size:
                _bounds(site, src, s0 + int(used.min()) * c0, s0 + int(used.max()) * c0 + c0 - 1)
            src_view, dst_view = ctx.views[src.key], ctx.views[dst.key]
            pixels = max((src.hi - s0) // c0, 1)
            fmap = as_strided(src_view[s0:], shape=(pixels, c0), strides=(c0 * src.isz, src.isz), writeable=False)
            fill = np.asarray(pad_value.value if isinstance(pad_value, Const) else pad_value(env)).astype(out_dt)
            values = np.where(inside[..., None], fmap[np.where(inside, pixel, 0)], fill)
            as_strided(dst_view[d0:], shape=(repeat, frac), strides=(pitch * dst.isz, dst.isz))[...] = \
                values.reshape(repeat, frac)
        ctx.append((index, repeat * frac * dst.isz))

    static = InstrStatic(index, spec.opcode, path.pipe, spec.cost_kind, spec.cost_key, dst.dtype,
                         path=(src.space, dst.space), text=site.text)
    return CompiledInstr(static, run, local_only=True)


def _start(ctx, site, op, align: int) -> int:
    start = op.base.value if isinstance(op.base, Const) else op.base(ctx.env)
    if (start * op.isz) % align:
        check_aligned(site, op.role, start * op.isz, align)
    return start


def _bounds(site, op, first: int, last: int) -> None:
    if first < op.lo or last >= op.hi:
        check_access(site, op.role, op.buffer, first, last, op.lo, op.hi)


ROWS = (
    InstrSpec("load3d", "load3d", OPERANDS, compile_load3d, None, "move", "load3d",
              "img2col: per repeat one 16-row fractal of feature-map pixels (L1 [C1, H, W, C0] -> L0A / UB), "
              "padding reads pad_value"),
)
