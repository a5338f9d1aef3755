"""Compare and select: ``vcmp`` (sets the core's CMPMASK), ``vcmpv`` (bits to a tensor), ``vsel``.

Bit layout: lane ``l`` of a repeat is bit ``l % 8`` of byte ``l // 8`` (little-endian bit order); ``vcmpv``
packs ``lanes / 8`` bytes per repeat back to back.  ``vsel`` mode 0 reuses the first ``lanes`` bits of ``sel``
for every repeat (the only mode on 910/310), modes 1 and 2 consume ``lanes`` bits per repeat; mode 1 takes a
scalar ``src1``.  Lanes outside the mask keep dst's old value; a masked-out ``vcmp`` lane clears its bit.
"""
from __future__ import annotations

import operator

import numpy as np

from npusim.errors.sim import InvalidOperandError
from npusim.sim.checks import check_dtype
from npusim.sim.dtypes import np_dtype
from npusim.sim.expr import Const
from npusim.sim.isa.context import CompileContext
from npusim.sim.isa.plans import check_overlap
from npusim.sim.isa.spec import CompiledInstr, InstrSpec, InstrStatic, OperandSpec
from npusim.sim.isa.vector import (VectorShape, _compile_scalar, check_static_access, lanes_for, locate, same_dtype,
                                   vector_operands)

CMP_OPS = {"eq": operator.eq, "ne": operator.ne, "lt": operator.lt, "gt": operator.gt, "ge": operator.ge,
           "le": operator.le}
_CMP = OperandSpec("cmp_op", "choice", choices=tuple(CMP_OPS))

VCMP_OPERANDS = (OperandSpec("mask", "mask"), _CMP, OperandSpec("src0", "tensor"), OperandSpec("src1", "tensor"),
                 OperandSpec("src0_blk_stride", "int", 1), OperandSpec("src1_blk_stride", "int", 1))
VCMPV_OPERANDS = (_CMP, OperandSpec("dst", "tensor"), OperandSpec("src0", "tensor"), OperandSpec("src1", "tensor"),
                  OperandSpec("repeat_times", "int"), OperandSpec("src0_blk_stride", "int", 1),
                  OperandSpec("src1_blk_stride", "int", 1), OperandSpec("src0_rep_stride", "int", 8),
                  OperandSpec("src1_rep_stride", "int", 8))
VSEL_OPERANDS = tuple(
    {"src1": OperandSpec("src1", "tensor_or_scalar"), "sel": OperandSpec("sel", "sel")}.get(op.name, op)
    for op in vector_operands(("dst", "sel", "src0", "src1"), extra_before=(OperandSpec("mode", "int", 0),))
    if op.name not in ("sel_blk_stride", "sel_rep_stride"))


def _cmp_op(kc: CompileContext, instr):
    name = instr.arg("cmp_op")
    if name not in CMP_OPS:
        raise kc.fail(InvalidOperandError, f"cmp_op must be one of {', '.join(CMP_OPS)}, got {name!r}")
    return CMP_OPS[name]


def _compare(values, cmp, npdt):
    return cmp(values[0], values[1])


def _compile_sources(kc: CompileContext, instr, opcode: str):
    srcs = (kc.tensor("src0", instr.arg("src0"), ("UB",)), kc.tensor("src1", instr.arg("src1"), ("UB",)))
    dtype = same_dtype(kc, srcs)
    check_dtype(kc.site, kc.chip, opcode, dtype)
    for op in srcs:
        kc.check_static_alignment(op)
    return srcs, dtype


def compile_vcmp(instr, spec, kc: CompileContext) -> CompiledInstr:
    site = kc.site
    srcs, dtype = _compile_sources(kc, instr, "vcmp")
    cmp = _cmp_op(kc, instr)
    lanes = lanes_for(kc.chip, srcs)
    names = {"src0": ("src0_blk_stride", 0), "src1": ("src1_blk_stride", 0)}
    shape = VectorShape(kc, instr, srcs, lanes, names, repeat=1)
    index = site.instr_index
    mask_lanes = kc.plans.mask_lanes
    align = kc.chip.block_bytes

    def run(ctx):
        _, plans = shape.plans(ctx.env)
        located = [locate(ctx, site, op, op.base, plan, align) for op, plan in zip(srcs, plans)]
        values = [plan.read(view, base) for (view, base), plan in zip(located, plans)]
        bits = np.zeros(lanes, dtype=bool)
        bits[mask_lanes(shape.mask.value if isinstance(shape.mask, Const) else shape.mask(ctx.env), lanes)] = \
            spec.semantics(values, cmp, None)
        ctx.cmpmask = bits
        ctx.append((index, 1))

    return CompiledInstr(InstrStatic(index, spec.opcode, "V", spec.cost_kind, spec.cost_key, dtype, text=site.text),
                         run, local_only=True)


def compile_vcmpv(instr, spec, kc: CompileContext) -> CompiledInstr:
    site = kc.site
    srcs, dtype = _compile_sources(kc, instr, "vcmpv")
    cmp = _cmp_op(kc, instr)
    dst = kc.as_bytes(kc.tensor("dst", instr.arg("dst"), ("UB",)))
    kc.check_static_alignment(dst)
    lanes = lanes_for(kc.chip, srcs)
    shape = VectorShape(kc, instr, srcs, lanes, mask=lanes)
    if shape.static_plans is not None:
        check_static_access(kc, srcs, shape.static_plans[1])
    index = site.instr_index
    nbytes = lanes // 8
    strided_plan = kc.plans.strided
    align = kc.chip.block_bytes

    def run(ctx):
        repeat, plans = shape.plans(ctx.env)
        dst_plan = strided_plan(repeat, nbytes, nbytes)
        dst_view, dst_base = locate(ctx, site, dst, dst.base, dst_plan, align)
        located = [locate(ctx, site, op, op.base, plan, align) for op, plan in zip(srcs, plans)]
        for op, (_, base), plan in zip(srcs, located, plans):
            check_overlap(site, dst, dst_base, dst_plan, op, base, plan, elementwise=False)
        values = [plan.read(view, base) for (view, base), plan in zip(located, plans)]
        bits = spec.semantics(values, cmp, None).reshape(repeat, lanes)
        dst_plan.write(dst_view, dst_base, np.packbits(bits, axis=1, bitorder="little").reshape(-1))
        ctx.append((index, repeat))

    return CompiledInstr(InstrStatic(index, spec.opcode, "V", spec.cost_kind, spec.cost_key, dtype, text=site.text),
                         run, local_only=True)


def _select(values, bits, npdt):
    return np.where(bits, values[0], values[1])


def compile_vsel(instr, spec, kc: CompileContext) -> CompiledInstr:
    site = kc.site
    mode = kc.expr(instr.arg("mode", 0))
    if not isinstance(mode, Const) or mode.value not in kc.chip.vsel_modes:
        raise kc.fail(InvalidOperandError, f"vsel mode {instr.arg('mode')!r} is not supported on {kc.chip.name} "
                                           f"(modes: {sorted(kc.chip.vsel_modes)})")
    mode = mode.value
    dst = kc.tensor("dst", instr.arg("dst"), ("UB",))
    src0 = kc.tensor("src0", instr.arg("src0"), ("UB",))
    scalar_src1 = mode == 1
    tensors = (dst, src0) if scalar_src1 else (dst, src0, kc.tensor("src1", instr.arg("src1"), ("UB",)))
    dtype = same_dtype(kc, tensors)
    check_dtype(site, kc.chip, "vsel", dtype)
    for op in tensors:
        kc.check_static_alignment(op)
    lanes = lanes_for(kc.chip, tensors)
    shape = VectorShape(kc, instr, tensors, lanes)
    if shape.static_plans is not None:
        check_static_access(kc, tensors, shape.static_plans[1])
    npdt = np_dtype(dtype)
    src1_scalar = _compile_scalar(kc, _Src1AsScalar(instr), npdt) if scalar_src1 else None
    sel = _compile_sel(kc, instr, mode)
    index = site.instr_index
    mask_lanes = kc.plans.mask_lanes
    align = kc.chip.block_bytes

    def run(ctx):
        repeat, plans = shape.plans(ctx.env)
        located = [locate(ctx, site, op, op.base, plan, align) for op, plan in zip(tensors, plans)]
        for op, (_, base), plan in zip(tensors[1:], located[1:], plans[1:]):
            check_overlap(site, dst, located[0][1], plans[0], op, base, plan, elementwise=True)
        values = [plan.read(view, base) for (view, base), plan in zip(located[1:], plans[1:])]
        if src1_scalar is not None:
            values.append(src1_scalar(ctx.env))
        active = mask_lanes(shape.mask.value if isinstance(shape.mask, Const) else shape.mask(ctx.env), lanes)
        bits = sel(ctx, repeat, lanes)[:, active].reshape(-1)
        plans[0].write(located[0][0], located[0][1], spec.semantics(values, bits, npdt))
        ctx.append((index, repeat))

    return CompiledInstr(InstrStatic(index, spec.opcode, "V", spec.cost_kind, spec.cost_key, dtype, text=site.text),
                         run, local_only=True)


class _Src1AsScalar:
    """Adapter so the scalar compiler reads vsel's ``src1`` operand (mode 1) as its ``scalar``."""

    def __init__(self, instr):
        self.instr = instr

    def arg(self, name, default=None):
        return self.instr.arg("src1" if name == "scalar" else name, default)


def _compile_sel(kc: CompileContext, instr, mode: int):
    """A function ctx, repeat, lanes -> bool array (repeat, lanes) of selection bits."""
    site = kc.site
    sel_ref = instr.arg("sel")
    if isinstance(sel_ref, str) and sel_ref.upper() == "CMPMASK":
        if mode != 0:
            raise kc.fail(InvalidOperandError, "sel=CMPMASK needs vsel mode 0")

        def from_cmpmask(ctx, repeat, lanes):
            if ctx.cmpmask is None:
                raise site.error(InvalidOperandError, "vsel reads CMPMASK but no vcmp has set it on this core")
            return np.broadcast_to(ctx.cmpmask[:lanes], (repeat, lanes))
        return from_cmpmask
    sel = kc.as_bytes(kc.tensor("sel", sel_ref, ("UB",)))
    strided_plan = kc.plans.strided

    def from_tensor(ctx, repeat, lanes):
        rows = 1 if mode == 0 else repeat
        plan = strided_plan(rows, lanes // 8, lanes // 8)
        view, base = locate(ctx, site, sel, sel.base, plan)
        bits = np.unpackbits(plan.read(view, base).reshape(rows, lanes // 8), axis=1, bitorder="little")
        return np.broadcast_to(bits.astype(bool), (repeat, lanes)) if mode == 0 else bits.astype(bool)
    return from_tensor


ROWS = (
    InstrSpec("vcmp", "vector_cmp", VCMP_OPERANDS, compile_vcmp, _compare, "vector", "vcmp",
              "CMPMASK[lane] = src0 <cmp_op> src1 for one repeat (masked lanes: 0)"),
    InstrSpec("vcmpv", "vector_cmp", VCMPV_OPERANDS, compile_vcmpv, _compare, "vector", "vcmpv",
              "dst bits = src0 <cmp_op> src1, all lanes, lanes/8 bytes per repeat"),
    InstrSpec("vsel", "vector_sel", VSEL_OPERANDS, compile_vsel, _select, "vector", "vsel",
              "dst = sel ? src0 : src1 per active lane (sel: bits tensor or 'CMPMASK')"),
)
