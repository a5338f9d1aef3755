"""Per-group reductions: ``vcgadd`` / ``vcgmax`` / ``vcgmin`` (one result per 32-byte block, 8 per repeat) and
``vcpadd`` (one result per pair of adjacent lanes, lanes / 2 per repeat).

Source lanes are addressed as for any vector instruction (mask, src block and repeat strides); the results of a
repeat are consecutive elements of dst, and dst_rep_stride counts whole repeats of results (8 elements for vcg*,
128 bytes for vcpadd: TIK's dst extents, te.tik ``_vector_group_reduce_func`` / ``_vector_pair_reduce_func``).
dst is element-aligned for vcg* and block-aligned for vcpadd (Ascend C PairReduceSum: a 32-byte aligned start).
A group whose lanes are all masked off writes nothing (CANN cce-intrinsic reference vcgadd/vcgmax/vcgmin: "if a
block's mask is all 0 the destination element is not written"; npusim applies the same rule to vcpadd's pairs —
an assumption, the reference does not say).  Masked-off lanes of a partly active group count as 0 in a sum and
are ignored by max / min.

``vcgadd`` sums a block as the chip's vcadd does: adjacent-pair binary tree (lane 0 + lane 1, ...), every level
rounded to the dtype, and saturated on a chip in saturation mode (:mod:`npusim.sim.isa.saturate`); ``vcpadd`` is
one such level.
"""
from __future__ import annotations

import numpy as np

from npusim.sim.dtypes import np_dtype
from npusim.sim.expr import Const
from npusim.sim.isa.context import CompileContext
from npusim.sim.isa.dup_reduce import reduce_operands, reduce_shape
from npusim.sim.isa.plans import _make_plan, check_overlap
from npusim.sim.isa.saturate import saturator_for
from npusim.sim.isa.spec import CompiledInstr, InstrSpec, InstrStatic, OperandSpec
from npusim.sim.isa.vector import locate

GROUP_OPERANDS = (OperandSpec("mask", "mask"), OperandSpec("dst", "tensor"), OperandSpec("src", "tensor"),
                  OperandSpec("repeat_times", "int"), OperandSpec("dst_rep_stride", "int", 1),
                  OperandSpec("src_blk_stride", "int", 1), OperandSpec("src_rep_stride", "int", 8))
PAIR = 2     # vcpadd adds lane 2i and lane 2i+1


def tree_sum(groups: np.ndarray, npdt: np.dtype, fix) -> np.ndarray:
    """Adjacent-pair tree sum over the last axis, each level rounded to ``npdt`` (and ``fix``-ed)."""
    level = groups
    with np.errstate(over="ignore", invalid="ignore"):
        while level.shape[-1] > 1:
            if level.shape[-1] % 2:
                level = np.concatenate([level, np.zeros(level.shape[:-1] + (1,), dtype=level.dtype)], axis=-1)
            level = (level[..., 0::2] + level[..., 1::2]).astype(npdt)
            if fix is not None:
                level = fix(level)
    return level[..., 0]


def _group_sum(groups, npdt, fix):
    return tree_sum(groups, npdt, fix)


def _group_max(groups, npdt, fix):
    return groups.max(axis=-1)


def _group_min(groups, npdt, fix):
    return groups.min(axis=-1)


def _neutral(opcode: str, npdt: np.dtype):
    if opcode in ("vcgadd", "vcpadd"):
        return npdt.type(0)
    big = np.inf if npdt.kind == "f" else np.iinfo(npdt).max
    return npdt.type(-big if opcode == "vcgmax" else big)


def _group_size(opcode: str, chip, isz: int) -> int:
    return PAIR if opcode == "vcpadd" else chip.block_elems(isz)


def _dst_plan(repeat: int, active_groups: np.ndarray, per_repeat: int, stride: int):
    rel = (np.arange(repeat, dtype=np.int64) * stride * per_repeat)[:, None] + active_groups[None, :]
    return _make_plan(rel)


def compile_group_reduce(instr, spec, kc: CompileContext) -> CompiledInstr:
    site = kc.site
    whole_blocks = spec.opcode == "vcpadd"                                     # vcpadd writes whole blocks
    dst, src, dtype = reduce_operands(instr, spec, kc, kc.chip.block_bytes if whole_blocks else None)
    dst_align = kc.chip.block_bytes if whole_blocks else dst.isz
    lanes, shape, dst_stride = reduce_shape(instr, kc, src)
    group = _group_size(spec.opcode, kc.chip, src.isz)
    per_repeat = lanes // group
    npdt = np_dtype(dtype)
    fill = _neutral(spec.opcode, npdt)
    fix = saturator_for(kc.chip, npdt) if spec.opcode in ("vcgadd", "vcpadd") else None
    mask_lanes = kc.plans.mask_lanes
    reduce_fn = spec.semantics
    align = kc.chip.block_bytes
    index = site.instr_index

    def run(ctx):
        repeat, (src_plan,) = shape.plans(ctx.env)
        stride = dst_stride.value if isinstance(dst_stride, Const) else dst_stride(ctx.env)
        active = mask_lanes(shape.mask.value if isinstance(shape.mask, Const) else shape.mask(ctx.env), lanes)
        groups_on = np.unique(active // group)
        dst_plan = _dst_plan(repeat, groups_on, per_repeat, stride)
        dst_view, dst_base = locate(ctx, site, dst, dst.base, dst_plan, dst_align)
        src_view, src_base = locate(ctx, site, src, src.base, src_plan, align)
        check_overlap(site, dst, dst_base, dst_plan, src, src_base, src_plan, elementwise=False)
        if repeat:
            grid = np.full((repeat, lanes), fill, dtype=npdt)
            grid[:, active] = src_plan.read(src_view, src_base).reshape(repeat, active.size)
            results = reduce_fn(grid.reshape(repeat, per_repeat, group), npdt, fix)
            dst_plan.write(dst_view, dst_base, results[:, groups_on].reshape(-1))
        ctx.append((index, repeat))

    static = InstrStatic(index, spec.opcode, "V", spec.cost_kind, spec.cost_key, dtype, text=site.text)
    return CompiledInstr(static, run, local_only=True)


def _row(opcode: str, semantics, doc: str) -> InstrSpec:
    return InstrSpec(opcode, "vector_group_reduce", GROUP_OPERANDS, compile_group_reduce, semantics, "vector",
                     opcode, doc)


ROWS = (
    _row("vcgadd", _group_sum, "dst[8r+b] = pairwise-tree sum of block b of repeat r (active lanes)"),
    _row("vcgmax", _group_max, "dst[8r+b] = max of block b of repeat r (active lanes)"),
    _row("vcgmin", _group_min, "dst[8r+b] = min of block b of repeat r (active lanes)"),
    _row("vcpadd", _group_sum, "dst[(lanes/2)r+i] = src lane 2i + src lane 2i+1 of repeat r"),
)
