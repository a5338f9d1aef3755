"""``vector_dup`` and the per-repeat reductions ``vcadd``, ``vcmax``, ``vcmin``.

``vcadd`` sums the active lanes of each repeat as the hardware does (CANN docs): a binary tree over adjacent
pairs (lane 0 + lane 1, lane 2 + lane 3, ...), each level rounded to the dtype; on a chip in saturation mode each
level is saturated (a float16 partial sum that overflows becomes +-65504, CANN's example), in inf_nan mode the
sums are IEEE.  Masked-out lanes count as 0.  ``vcmax``/``vcmin`` write a
(value, index) pair per repeat: the index (lane number of the first extreme) is stored as the raw bits of an
unsigned integer of the dtype's width.  dst_rep_stride counts whole results (1 element for vcadd, 2 for vcmax).
"""
from __future__ import annotations

import functools

import numpy as np

from npusim.errors.sim import InvalidOperandError
from npusim.sim.checks import check_dtype
from npusim.sim.dtypes import np_dtype
from npusim.sim.expr import Const
from npusim.sim.geometry import REDUCE_STRIDE_MAX
from npusim.sim.isa.context import CompileContext
from npusim.sim.isa.plans import check_overlap
from npusim.sim.isa.batch_reduce_run import reduce_link
from npusim.sim.isa.batch_vector import reduce_batch
from npusim.sim.isa.saturate import has_nonfinite, saturator_for
from npusim.sim.isa.spec import CompiledInstr, InstrSpec, InstrStatic, OperandSpec
from npusim.sim.isa.vector import (VectorShape, check_static_access, compile_elementwise, compile_stride, lanes_for,
                                   locate)

try:    # the compiled one-pass float32 tree (setup.py builds it); the numpy levels give the same sums without it
    from npusim.sim.isa._native import MAX_LANES as _PAIR_TREE_MAX_LANES
    from npusim.sim.isa._native import pair_tree_f32 as _pair_tree_f32
except ImportError:  # pragma: no cover - a source tree without built extensions
    _pair_tree_f32, _PAIR_TREE_MAX_LANES = None, 0

#: a vcadd tree over more than twice this many bytes runs in slices of about this size (host cache blocking)
TREE_SLICE_BYTES = 1 << 19

DUP_OPERANDS = (OperandSpec("mask", "mask"), OperandSpec("dst", "tensor"), OperandSpec("scalar", "scalar"),
                OperandSpec("repeat_times", "int"), OperandSpec("dst_blk_stride", "int", 1),
                OperandSpec("dst_rep_stride", "int", 8))
REDUCE_OPERANDS = (OperandSpec("mask", "mask"), OperandSpec("dst", "tensor"), OperandSpec("src", "tensor"),
                   OperandSpec("repeat_times", "int"), OperandSpec("dst_rep_stride", "int", 1),
                   OperandSpec("src_blk_stride", "int", 1), OperandSpec("src_rep_stride", "int", 8))


def _dup(inputs, scalar, npdt):
    return scalar


def _tree_sum(values: np.ndarray, npdt: np.dtype, fix) -> np.ndarray:
    """Adjacent-pair binary-tree sum along the last axis of (... x lanes) data (any strides: repeats x lanes, or
    blocks x instructions x repeats x lanes), rounding to npdt per level, results flattened in C order; ``fix``
    (the chip's saturation, or None) is applied to every level.

    The tree runs without ``fix`` first: a sum with an inf or NaN operand is inf or NaN, so a non-finite partial
    sum always reaches the row's result.  When every result is finite no level produced a value ``fix`` would
    change, and the results are the saturated tree's; otherwise the tree runs again level by level with ``fix``.
    """
    with np.errstate(over="ignore", invalid="ignore"):
        plain = _compiled_tree(values, npdt)
        if plain is None or has_nonfinite(plain):
            plain = _tree_in_slices(values, npdt)
        if fix is None or not has_nonfinite(plain):
            return plain
        return _tree_levels(values, npdt, fix).reshape(-1)


def _compiled_tree(values: np.ndarray, npdt: np.dtype):
    """The tree's results from the compiled one-pass float32 sum, or None where it does not apply (another dtype,
    lanes not contiguous, the extension not built).  Its finite results equal the numpy levels' bit for bit; the
    caller redoes non-finite ones in numpy (NaN payloads and saturation are decided there)."""
    if (_pair_tree_f32 is None or values.dtype != np.float32 or npdt != np.float32 or values.ndim == 0
            or not 0 < values.shape[-1] <= _PAIR_TREE_MAX_LANES or values.strides[-1] != values.itemsize):
        return None
    rows = values.reshape((1,) * (4 - values.ndim) + values.shape) if values.ndim < 4 else values
    if rows.ndim > 4:
        try:
            rows = rows.reshape((-1,) + rows.shape[-3:], copy=False)
        except ValueError:     # leading axes that do not merge without a copy
            return None
    out = np.empty(rows.shape[0] * rows.shape[1] * rows.shape[2], dtype=np.float32)
    _pair_tree_f32(rows, out)
    return out


def _tree_in_slices(values: np.ndarray, npdt: np.dtype) -> np.ndarray:
    """:func:`_tree_levels` without ``fix``, flattened, over slices of the leading axis of about TREE_SLICE_BYTES
    at a time when the data are large (each slice's levels then stay in the host's cache)."""
    if values.ndim < 2 or values.nbytes <= 2 * TREE_SLICE_BYTES:
        return _tree_levels(values, npdt, None).reshape(-1)
    per_slice = max(1, TREE_SLICE_BYTES // max(1, values[0].nbytes))
    out = np.empty(values.shape[:-1], dtype=npdt)
    for first in range(0, values.shape[0], per_slice):
        out[first:first + per_slice] = _tree_levels(values[first:first + per_slice], npdt, None)
    return out.reshape(-1)


def _tree_levels(level: np.ndarray, npdt: np.dtype, fix) -> np.ndarray:
    """The tree over the last axis: every level adds lane 2i and lane 2i+1 in place (a zero lane appended to an odd
    count); the data stay in their own layout, so every level is one strided numpy add."""
    while level.shape[-1] > 1:
        if level.shape[-1] % 2:
            level = np.concatenate([level, np.zeros(level.shape[:-1] + (1,), dtype=level.dtype)], axis=-1)
        summed = level[..., 0::2] + level[..., 1::2]
        if summed.dtype != npdt:
            summed = summed.astype(npdt)
        level = summed if fix is None else fix(summed)
    if level.dtype != npdt:
        level = level.astype(npdt)
    return level[..., 0]


def _vcadd(grid: np.ndarray, npdt: np.dtype, fix) -> np.ndarray:
    return _tree_sum(grid, npdt, fix)


_vcadd.cube = _tree_sum    # the same sums from (blocks x repeats x lanes) data (batched forms)


def _extreme(grid: np.ndarray, npdt: np.dtype, fix, find_max: bool) -> np.ndarray:
    """(value, index) pairs; an element is selected, not computed, so ``fix`` is not applied."""
    index = np.argmax(grid, axis=1) if find_max else np.argmin(grid, axis=1)
    value = grid[np.arange(grid.shape[0]), index]
    pairs = np.empty((grid.shape[0], 2), dtype=npdt)
    pairs[:, 0] = value
    pairs[:, 1] = index.astype(np.dtype(f"u{npdt.itemsize}")).view(npdt)
    return pairs.reshape(-1)


def reduce_operands(instr, spec, kc: CompileContext, dst_align=None) -> tuple:
    """(dst, src, dtype) of a reduction over repeats: both in UB, one dtype the chip lists for the opcode, src
    block-aligned, dst aligned to ``dst_align`` bytes (default: one element)."""
    dst = kc.tensor("dst", instr.arg("dst"), ("UB",))
    src = kc.tensor("src", instr.arg("src"), ("UB",))
    dtype = src.dtype
    if dst.dtype != dtype:
        raise kc.fail(InvalidOperandError, f"dst dtype {dst.dtype} differs from src dtype {dtype}")
    check_dtype(kc.site, kc.chip, spec.opcode, dtype)
    kc.check_static_alignment(src)
    kc.check_static_alignment(dst, align=dst.isz if dst_align is None else dst_align)
    return dst, src, dtype


def reduce_shape(instr, kc: CompileContext, src) -> tuple:
    """(lanes, VectorShape of src, compiled dst_rep_stride) of a reduction over repeats, src's static accesses
    checked."""
    lanes = lanes_for(kc.chip, (src,))
    shape = VectorShape(kc, instr, (src,), lanes, {"src": ("src_blk_stride", "src_rep_stride")},
                        stride_high=REDUCE_STRIDE_MAX)
    dst_stride = compile_stride(kc, instr, "dst_rep_stride", REDUCE_STRIDE_MAX)
    if shape.static_plans is not None:
        check_static_access(kc, (src,), shape.static_plans[1])
    return lanes, shape, dst_stride


def compile_reduce(instr, spec, kc: CompileContext, *, fill, per_repeat: int) -> CompiledInstr:
    site = kc.site
    dst, src, dtype = reduce_operands(instr, spec, kc)
    lanes, shape, dst_stride = reduce_shape(instr, kc, src)
    npdt = np_dtype(dtype)
    fill_value = npdt.type(fill(npdt))
    fix = saturator_for(kc.chip, npdt)
    strided_plan, mask_lanes = kc.plans.strided, kc.plans.mask_lanes
    index = site.instr_index
    align = kc.chip.block_bytes

    def run(ctx):
        repeat, (src_plan,) = shape.plans(ctx.env)
        stride = dst_stride.value if isinstance(dst_stride, Const) else dst_stride(ctx.env)
        dst_plan = strided_plan(repeat, per_repeat, stride * per_repeat)
        dst_view, dst_base = locate(ctx, site, dst, dst.base, dst_plan)
        src_view, src_base = locate(ctx, site, src, src.base, src_plan, align)
        check_overlap(site, dst, dst_base, dst_plan, src, src_base, src_plan, elementwise=False)
        active = mask_lanes(shape.mask.value if isinstance(shape.mask, Const) else shape.mask(ctx.env), lanes)
        grid = np.full((repeat, lanes), fill_value, dtype=npdt)
        grid[:, active] = src_plan.read(src_view, src_base).reshape(repeat, active.size)
        if repeat:
            dst_plan.write(dst_view, dst_base, spec.semantics(grid, npdt, fix))
        ctx.append((index, repeat))

    semantics = spec.semantics
    on_cube = getattr(semantics, "cube", None)
    batch = reduce_batch(kc, instr, dst, src, shape, dst_stride, per_repeat, fill_value,
                         lambda grid: semantics(grid, npdt, fix), index,
                         None if on_cube is None else (lambda cube: on_cube(cube, npdt, fix)))
    extra = {}
    if batch is not None and on_cube is not None:
        link = reduce_link(kc, dst, src, shape, dst_stride, per_repeat, (on_cube, npdt, fix), index, batch)
        if link is not None:
            extra["reduce_run"] = link
    return CompiledInstr(InstrStatic(index, spec.opcode, "V", spec.cost_kind, spec.cost_key, dtype, text=site.text),
                         run, extra=extra, batch=batch, local_only=True)


def _reduce_row(opcode: str, semantics, fill, per_repeat: int, doc: str) -> InstrSpec:
    compile_fn = functools.partial(compile_reduce, fill=fill, per_repeat=per_repeat)
    return InstrSpec(opcode, "vector_reduce", REDUCE_OPERANDS, compile_fn, semantics, "vector", opcode, doc)


ROWS = (
    InstrSpec("vector_dup", "vector_dup", DUP_OPERANDS,
              functools.partial(compile_elementwise, srcs=(), has_scalar=True, computes=False), _dup, "vector",
              "vector_dup",
              "dst = scalar (converted to dst's dtype) on every active lane"),
    _reduce_row("vcadd", _vcadd, lambda dt: 0, 1, "dst[r] = pairwise-tree sum of repeat r's active lanes"),
    _reduce_row("vcmax", functools.partial(_extreme, find_max=True),
                lambda dt: -np.inf if dt.kind == "f" else np.iinfo(dt).min, 2,
                "dst[2r], dst[2r+1] = max of repeat r, its lane index (raw unsigned bits)"),
    _reduce_row("vcmin", functools.partial(_extreme, find_max=False),
                lambda dt: np.inf if dt.kind == "f" else np.iinfo(dt).max, 2,
                "dst[2r], dst[2r+1] = min of repeat r, its lane index (raw unsigned bits)"),
)
