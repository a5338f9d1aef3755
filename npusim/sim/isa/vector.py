"""Shared machinery of vector instructions (UB operands, mask, repeat_times, block/repeat strides).

Compiling resolves operands and checks every constant operand once; when mask, repeat and strides are all
constants the access plans are built at compile time too, so running the instruction is: evaluate start
addresses, check alignment and bounds, one gather/slice per source, one numpy expression, one scatter/slice store.
"""
from __future__ import annotations

from typing import Callable, Optional

import numpy as np

from npusim.sim.checks import (Site, check_access, check_aligned, check_dtype, check_int_range, check_mask_count,
                               check_mask_pair, check_repeat)
from npusim.sim.dtypes import np_dtype
from npusim.sim.expr import Const, evaluator
from npusim.sim.geometry import VECTOR_STRIDE_MAX
from npusim.sim.isa.context import CompileContext, TensorOperand
from npusim.sim.isa.plans import AccessPlan, check_accumulating_dst, check_overlap
from npusim.sim.isa.saturate import saturating, saturator_for
from npusim.sim.isa.spec import CompiledInstr, InstrStatic, OperandSpec
from npusim.errors.sim import InvalidOperandError
from npusim.sim.isa.batch_chain import chain_link
from npusim.sim.isa.batch_trips import TripVector
from npusim.sim.isa.batch_vector import batch_scalar, elementwise_batch


def vector_operands(tensors: tuple, extra_before: tuple = (), extra_after: tuple = ()) -> tuple:
    """Operand list in TIK's old-form order: mask, extras, tensors, extras, repeat, block strides, repeat strides."""
    ops = [OperandSpec("mask", "mask"), *extra_before]
    ops += [OperandSpec(t, "tensor") for t in tensors]
    ops += [*extra_after, OperandSpec("repeat_times", "int")]
    ops += [OperandSpec(f"{t}_blk_stride", "int", 1) for t in tensors]
    ops += [OperandSpec(f"{t}_rep_stride", "int", 8) for t in tensors]
    return tuple(ops)


def compile_checked(kc: CompileContext, value, check: Callable):
    """Compile an operand expression; a constant is checked now, a run-time value is checked when evaluated."""
    compiled = kc.expr(value)
    if isinstance(compiled, Const):
        return Const(check(compiled.value))
    return lambda env: check(compiled(env))


def compile_mask(kc: CompileContext, value, lanes: int):
    """Mask operand: an int count or a (mask_h, mask_l) pair of expressions; returns Const(key) or fn(env)->key."""
    site = kc.site
    if isinstance(value, (tuple, list)):
        if len(value) != 2:
            raise kc.fail(InvalidOperandError, f"mask pair must be [mask_h, mask_l], got {value!r}")
        high, low = kc.expr(value[0]), kc.expr(value[1])
        if isinstance(high, Const) and isinstance(low, Const):
            return Const(check_mask_pair(site, high.value, low.value, lanes))
        fh, fl = evaluator(high), evaluator(low)
        return lambda env: check_mask_pair(site, fh(env), fl(env), lanes)
    return compile_checked(kc, value, lambda v: check_mask_count(site, v, lanes))


def compile_repeat(kc: CompileContext, value):
    max_repeat = kc.chip.max_repeat
    site = kc.site
    compiled = kc.expr(value)
    if isinstance(compiled, Const):  # immediates: [1, max_repeat]; run-time values may be 0 (TIK)
        return Const(check_repeat(site, compiled.value, max_repeat))
    return lambda env: check_repeat(site, compiled(env), max_repeat, allow_zero=True)


def compile_stride(kc: CompileContext, instr, name: str, high: int = VECTOR_STRIDE_MAX):
    site = kc.site
    return compile_checked(kc, instr.arg(name), lambda v: check_int_range(site, name, v, 0, high))


def _stride(kc: CompileContext, instr, name, high: int):
    """A stride operand by name, or a fixed stride given as an int (operands the instruction does not have)."""
    return Const(name) if isinstance(name, int) else compile_stride(kc, instr, name, high)


def same_dtype(kc: CompileContext, tensors) -> str:
    dtype = tensors[0].dtype
    for op in tensors[1:]:
        if op.dtype != dtype:
            raise kc.fail(InvalidOperandError, f"{op.role} dtype {op.dtype} differs from {tensors[0].role} dtype "
                                               f"{dtype}; this instruction needs equal dtypes")
    return dtype


def locate(ctx, site: Site, op: TensorOperand, base_fn, plan: AccessPlan, align_bytes: int = 0):
    """Evaluate an operand's start, check its alignment to ``align_bytes`` (local, run-time starts; 0: no check;
    constant starts are checked at compile time) and bounds; return (view, base)."""
    if isinstance(base_fn, Const):
        base = base_fn.value
    else:
        base = base_fn(ctx.env)
        if align_bytes and not op.is_gm and (base * op.isz) % align_bytes:
            check_aligned(site, op.role, base * op.isz, align_bytes)
    if plan.size:
        hi = op.hi if op.hi is not None else ctx.gm_hi[op.key]
        first, last = base + plan.first, base + plan.last
        if first < op.lo or last >= hi:
            check_access(site, op.role, op.buffer, first, last, op.lo, hi)
    return ctx.views[op.key], base


def check_static_access(kc: CompileContext, operands, plans) -> None:
    """At compile time, check bounds of local operands whose start and plan are both constant (TIK does this for
    immediates: "instruction need N but only M")."""
    for op, plan in zip(operands, plans):
        if op.is_gm or not isinstance(op.base, Const) or plan is None or not plan.size:
            continue
        first, last = op.base.value + plan.first, op.base.value + plan.last
        if first < op.lo or last >= op.hi:
            check_access(kc.site, op.role, op.buffer, first, last, op.lo, op.hi)


def check_static_overlap(kc: CompileContext, dst: TensorOperand, sources, plans) -> None:
    """At compile time, apply the overlap rules to operands whose starts are constants."""
    if not isinstance(dst.base, Const):
        return
    for op, plan in zip(sources, plans[1:]):
        if isinstance(op.base, Const):
            check_overlap(kc.site, dst, dst.base.value, plans[0], op, op.base.value, plan, elementwise=True)


class VectorShape:
    """Mask, repeat and per-operand strides of one vector instruction, compiled; yields plans per execution."""

    def __init__(self, kc: CompileContext, instr, tensors: tuple, lanes: int, stride_names: Optional[dict] = None,
                 mask=None, repeat=None, stride_high: int = VECTOR_STRIDE_MAX):
        self.lanes = lanes
        self._vector_plan = kc.plans.vector
        self._block_bytes = kc.chip.block_bytes
        self.mask = compile_mask(kc, instr.arg("mask") if mask is None else mask, lanes)
        self.repeat = compile_repeat(kc, instr.arg("repeat_times") if repeat is None else repeat)
        names = stride_names or {t.role: (f"{t.role}_blk_stride", f"{t.role}_rep_stride") for t in tensors}
        self.strides = [(_stride(kc, instr, names[t.role][0], stride_high),
                         _stride(kc, instr, names[t.role][1], stride_high)) for t in tensors]
        self.sizes = [t.isz for t in tensors]
        parts = [self.mask, self.repeat] + [s for pair in self.strides for s in pair]
        self.static = all(isinstance(p, Const) for p in parts)
        self.static_plans = self.plans_for(self._values(None)) if self.static else None

    def _values(self, env):
        get = (lambda c: c.value) if env is None else (lambda c: c.value if isinstance(c, Const) else c(env))
        return get(self.mask), get(self.repeat), [(get(b), get(r)) for b, r in self.strides]

    def plans_for(self, values) -> tuple:
        mask, repeat, strides = values
        plans = tuple(self._vector_plan(mask, self.lanes, repeat, blk, rep, isz, self._block_bytes)
                      for (blk, rep), isz in zip(strides, self.sizes))
        return repeat, plans

    def plans(self, env) -> tuple:
        """(repeat_times, plans per tensor operand) for this execution."""
        if self.static_plans is not None:
            return self.static_plans
        return self.plans_for(self._values(env))


def lanes_for(chip, tensors) -> int:
    """Lanes per repeat on ``chip``: its vector width over the widest operand, at most the mask register's width."""
    return chip.lanes(max(t.isz for t in tensors))


def compile_elementwise(instr, spec, kc: CompileContext, *, srcs: tuple, dst_reads: bool = False,
                        has_scalar: bool = False, computes: bool = True) -> CompiledInstr:
    """Compile a binary/unary/tensor-scalar/ternary/dup instruction whose row semantics is
    ``semantics(inputs, scalar, np_dtype) -> values`` (inputs: flat source arrays, then dst's old values).
    ``computes``: float results are saturated on a chip in saturation mode (False for vector_dup, a move)."""
    site = kc.site
    dst = kc.tensor("dst", instr.arg("dst"), ("UB",))
    sources = tuple(kc.tensor(name, instr.arg(name), ("UB",)) for name in srcs)
    tensors = (dst,) + sources
    dtype = same_dtype(kc, tensors)
    check_dtype(site, kc.chip, spec.opcode, dtype)
    for op in tensors:
        kc.check_static_alignment(op)
    shape = VectorShape(kc, instr, tensors, lanes_for(kc.chip, tensors))
    if shape.static_plans is not None:
        check_static_access(kc, tensors, shape.static_plans[1])
        check_static_overlap(kc, dst, sources, shape.static_plans[1])
        if dst_reads:
            check_accumulating_dst(site, dst, shape.static_plans[1][0])
    npdt = np_dtype(dtype)
    scalar = _compile_scalar(kc, instr, npdt) if has_scalar else None
    semantics = saturating(spec.semantics, kc.chip, npdt) if computes else spec.semantics
    index = site.instr_index
    bases = [op.base for op in tensors]
    align = kc.chip.block_bytes

    def run(ctx):
        repeat, plans = shape.plans(ctx.env)
        located = [locate(ctx, site, op, b, p, align) for op, b, p in zip(tensors, bases, plans)]
        dst_view, dst_base = located[0]
        for (view, base), op, plan in zip(located[1:], sources, plans[1:]):
            check_overlap(site, dst, dst_base, plans[0], op, base, plan, elementwise=True)
        inputs = [plan.read(view, base) for (view, base), plan in zip(located[1:], plans[1:])]
        if dst_reads:
            check_accumulating_dst(site, dst, plans[0])
            inputs.append(plans[0].read(dst_view, dst_base))
        value = scalar(ctx.env) if scalar is not None else None
        plans[0].write(dst_view, dst_base, semantics(inputs, value, npdt))
        ctx.append((index, repeat))

    static = InstrStatic(index, spec.opcode, "V", spec.cost_kind, spec.cost_key, dtype, text=site.text)
    batch_value = batch_scalar(kc, instr, npdt, scalar) if scalar is not None else None
    fix = saturator_for(kc.chip, npdt) if computes else None
    batch = elementwise_batch(kc, instr, tensors, shape, semantics, npdt, dst_reads, batch_value, index,
                              ufunc=getattr(spec.semantics, "ufunc", None), fix=fix)
    extra = {} if batch is None or dst_reads else _lockstep_extras(kc, instr, spec, tensors, shape, fix, npdt,
                                                                    batch_value, index, batch)
    return CompiledInstr(static, run, extra=extra, batch=batch, local_only=True)


def _lockstep_extras(kc, instr, spec, tensors, shape, fix, npdt, batch_value, index, batch) -> dict:
    """What lockstep loops and straight-line runs need to batch this instruction further: "trips" (a loop
    around it, :class:`TripVector`) and "chain" (an accumulation chain link)."""
    extra = {}
    if shape.static_plans is not None:
        extra["trips"] = TripVector(kc, instr, tensors, shape.static_plans, spec.semantics, fix, npdt, batch_value,
                                    index)
    if batch_value is None:         # chain links are binary instructions (vadd, vmax ...), all computing ones
        link = chain_link(spec.opcode, tensors, shape, spec.semantics, fix, npdt, index, batch)
        if link is not None:
            extra["chain"] = link
    return extra


def _compile_scalar(kc: CompileContext, instr, npdt: np.dtype):
    """The scalar operand converted to the tensors' dtype (as the hardware register holds it)."""
    compiled = kc.expr(instr.arg("scalar"))
    if isinstance(compiled, Const):
        value = _to_dtype(kc.site, compiled.value, npdt)
        return lambda env: value
    site = kc.site
    return lambda env: _to_dtype(site, compiled(env), npdt)


def _to_dtype(site, value, npdt: np.dtype):
    try:
        if npdt.kind in "iu":
            bits = npdt.itemsize * 8
            wrapped = int(value) & ((1 << bits) - 1)
            if npdt.kind == "i" and wrapped >= 1 << (bits - 1):
                wrapped -= 1 << bits
            return npdt.type(wrapped)
        with np.errstate(over="ignore"):
            return npdt.type(value)
    except (TypeError, ValueError, OverflowError) as exc:
        raise site.error(InvalidOperandError, f"scalar {value!r} cannot be converted to {npdt.name}: {exc}") from None
