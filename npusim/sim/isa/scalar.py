"""Scalar-unit instructions (pipe S): set a register, load a register from a tensor element, store an element.

Registers hold Python numbers already converted to their dtype (ints wrap, floats round).  Loads and stores are
element-granular (no 32-byte alignment) and bounds-checked like every other access.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional

from npusim.errors.sim import InvalidOperandError
from npusim.sim.batch_expr import evaluator_for
from npusim.sim.dtypes import cast_scalar
from npusim.sim.expr import evaluator
from npusim.sim.isa.batch_scalar import sload_batch, sset_batch, sstore_batch
from npusim.sim.isa.context import CompileContext
from npusim.sim.isa.plans import make_strided_plan
from npusim.sim.isa.spec import CompiledInstr, InstrSpec, InstrStatic, OperandSpec
from npusim.sim.isa.vector import locate

SSET_OPERANDS = (OperandSpec("dst", "name"), OperandSpec("value", "scalar"))
SLOAD_OPERANDS = (OperandSpec("dst", "name"), OperandSpec("src", "tensor"))
SSTORE_OPERANDS = (OperandSpec("dst", "tensor"), OperandSpec("value", "scalar"))
_ONE = make_strided_plan(1, 1, 0)  # one element: a constant plan, built once


@dataclass(frozen=True)
class ScalarTripOp:
    """What a loop of scalar instructions needs to run many trips at once (:mod:`npusim.sim.lockstep.
    scalar_trips`): ``kind`` "sset" / "sload" / "sstore", the register ``slot`` written (sset, sload) and its
    ``dtype`` (the memory operand's dtype for sstore), the memory operand ``op`` with ``start`` (b -> its element
    index, :meth:`CompileContext.batch_base`), the kernel's ``value`` expression (sset, sstore) and the trace
    ``record``."""

    kind: str
    dtype: str
    record: tuple
    site: object
    slot: Optional[int] = None
    op: object = None
    start: Optional[Callable] = None
    value: object = None


def _register(kc: CompileContext, name) -> tuple:
    """(slot, dtype) of scalar register ``name``."""
    reg = next((r for r in kc.kernel.scalars if r.name == name), None)
    if reg is None:
        raise kc.fail(InvalidOperandError, f"{name!r} is not a scalar register of the kernel")
    return kc.slots.slot(name), reg.dtype


def _static(kc, spec, key: str) -> InstrStatic:
    return InstrStatic(kc.site.instr_index, spec.opcode, "S", spec.cost_kind, key, text=kc.site.text)


def compile_sset(instr, spec, kc: CompileContext) -> CompiledInstr:
    slot, dtype = _register(kc, instr.arg("dst"))
    value = evaluator(kc.expr(instr.arg("value")))
    site, record = kc.site, (kc.site.instr_index, 1)

    def run(ctx):
        try:
            ctx.env[slot] = cast_scalar(value(ctx.env), dtype)
        except (TypeError, ValueError, OverflowError) as exc:
            raise site.error(InvalidOperandError, f"cannot set {dtype} register: {exc}") from None
        ctx.append(record)

    batch = sset_batch(site, instr.arg("value"), kc.slots, slot, dtype, record)
    trip = ScalarTripOp("sset", dtype, record, site, slot=slot, value=instr.arg("value"))
    return CompiledInstr(_static(kc, spec, "alu"), run, batch=batch, extra={"scalar_trip": trip})


def compile_sload(instr, spec, kc: CompileContext) -> CompiledInstr:
    slot, dtype = _register(kc, instr.arg("dst"))
    src = kc.tensor("src", instr.arg("src"), ("UB", "GM", "L1"))
    site, record = kc.site, (kc.site.instr_index, 1)

    def run(ctx):
        view, base = locate(ctx, site, src, src.base, _ONE)
        ctx.env[slot] = cast_scalar(view[base].item(), dtype)
        ctx.append(record)

    trip = ScalarTripOp("sload", dtype, record, site, slot=slot, op=src, start=evaluator_for(kc.batch_base(src)))
    return CompiledInstr(_static(kc, spec, "mem"), run, batch=sload_batch(kc, src, slot, dtype, record),
                         extra={"scalar_trip": trip})


def compile_sstore(instr, spec, kc: CompileContext) -> CompiledInstr:
    dst = kc.tensor("dst", instr.arg("dst"), ("UB", "GM", "L1"))
    value = evaluator(kc.expr(instr.arg("value")))
    site, record = kc.site, (kc.site.instr_index, 1)
    dtype = dst.dtype

    def run(ctx):
        view, base = locate(ctx, site, dst, dst.base, _ONE)
        view[base] = cast_scalar(value(ctx.env), dtype)
        ctx.append(record)

    batch = sstore_batch(kc, dst, instr.arg("value"), record)
    trip = ScalarTripOp("sstore", dtype, record, site, op=dst, start=evaluator_for(kc.batch_base(dst)),
                        value=instr.arg("value"))
    return CompiledInstr(_static(kc, spec, "mem"), run, batch=batch, gm_writes=_gm_writes(dst),
                         extra={"scalar_trip": trip})


def _gm_writes(op) -> tuple:
    return (op.key[1],) if op.is_gm else ()


ROWS = (
    InstrSpec("sset", "scalar", SSET_OPERANDS, compile_sset, None, "scalar", "alu",
              "register dst = value (converted to the register's dtype)"),
    InstrSpec("sload", "scalar", SLOAD_OPERANDS, compile_sload, None, "scalar", "mem",
              "register dst = src element"),
    InstrSpec("sstore", "scalar", SSTORE_OPERANDS, compile_sstore, None, "scalar", "mem",
              "dst element = value (converted to dst's dtype)"),
)
