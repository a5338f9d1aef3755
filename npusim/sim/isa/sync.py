"""Pipe synchronisation: ``set_flag``, ``wait_flag``, ``pipe_barrier``.

Functionally these do nothing (the executor runs instructions in program order); they feed the cost model's
per-pipe timelines.  The executor counts flags per block so that a ``wait_flag`` no ``set_flag`` ever answers is
reported as the hang it would be on hardware.  Pipe names may be given as "MTE2" or "PIPE_MTE2".
"""
from __future__ import annotations

from npusim.errors.sim import InvalidOperandError
from npusim.sim.checks import check_int_range
from npusim.sim.expr import Const
from npusim.sim.isa.context import CompileContext
from npusim.sim.isa.spec import CompiledInstr, InstrSpec, InstrStatic, OperandSpec

FLAG_OPERANDS = (OperandSpec("src_pipe", "choice"), OperandSpec("dst_pipe", "choice"), OperandSpec("event_id", "int"))
BARRIER_OPERANDS = (OperandSpec("pipe", "choice"),)


def pipe_name(kc: CompileContext, value, operand: str, allow_all: bool = False) -> str:
    """Normalise a pipe operand ("PIPE_V" -> "V") and check the chip has that pipe."""
    name = str(value).upper()
    name = name[5:] if name.startswith("PIPE_") else name
    if allow_all and name == "ALL":
        return name
    if name not in kc.chip.pipes:
        raise kc.fail(InvalidOperandError, f"{operand} {value!r} is not a pipe of {kc.chip.name} "
                                           f"(pipes: {', '.join(kc.chip.pipes)}{', ALL' if allow_all else ''})")
    return name


def compile_flag(instr, spec, kc: CompileContext) -> CompiledInstr:
    site = kc.site
    src = pipe_name(kc, instr.arg("src_pipe"), "src_pipe")
    dst = pipe_name(kc, instr.arg("dst_pipe"), "dst_pipe")
    if src == dst:
        raise kc.fail(InvalidOperandError, f"{spec.opcode} between a pipe and itself ({src}); use pipe_barrier")
    limit = kc.chip.event_ids - 1
    event = kc.expr(instr.arg("event_id"))
    index = site.instr_index
    is_set = spec.opcode == "set_flag"
    if isinstance(event, Const):
        event_id = check_int_range(site, "event_id", event.value, 0, limit)
        key = (src, dst, event_id)
        record = (index, event_id)

        def run(ctx):
            flags = ctx.flags
            flags[key] = flags.get(key, 0) + (1 if is_set else -1)
            ctx.append(record)

        delta = 1 if is_set else -1

        def batch(b):
            b.flag(key, delta)
            b.append(record)
    else:
        batch = _dynamic_flag_batch(kc, instr, event, src, dst, limit, index, is_set)

        def run(ctx):
            event_id = check_int_range(site, "event_id", event(ctx.env), 0, limit)
            flags = ctx.flags
            flags[(src, dst, event_id)] = flags.get((src, dst, event_id), 0) + (1 if is_set else -1)
            ctx.append((index, event_id))
    pipe = src if is_set else dst
    flag = (src, dst, event.value if isinstance(event, Const) else -1)
    return CompiledInstr(InstrStatic(index, spec.opcode, pipe, spec.cost_kind, spec.cost_key, flag=flag,
                                     text=site.text), run, batch=batch)


def _dynamic_flag_batch(kc: CompileContext, instr, event, src: str, dst: str, limit: int, index: int,
                        is_set: bool):
    """The batched form of a flag whose event id is computed at run time (the same in every block), or None."""
    if not kc.batch_uniform(instr.arg("event_id")):
        return None
    site, delta = kc.site, (1 if is_set else -1)

    def batch(b):
        event_id = check_int_range(site, "event_id", event(b.env), 0, limit)
        b.flag((src, dst, event_id), delta)
        b.append((index, event_id))
    return batch


def compile_barrier(instr, spec, kc: CompileContext) -> CompiledInstr:
    site = kc.site
    pipe = pipe_name(kc, instr.arg("pipe"), "pipe", allow_all=True)
    record = (site.instr_index, None)

    def run(ctx):
        ctx.append(record)

    def batch(b):
        b.append(record)

    return CompiledInstr(InstrStatic(site.instr_index, spec.opcode, "S" if pipe == "ALL" else pipe, spec.cost_kind,
                                     spec.cost_key, barrier_pipe=pipe, text=site.text), run, batch=batch)


ROWS = (
    InstrSpec("set_flag", "sync", FLAG_OPERANDS, compile_flag, None, "set_flag", "flag",
              "src_pipe raises event_id for dst_pipe once all earlier src_pipe work is done"),
    InstrSpec("wait_flag", "sync", FLAG_OPERANDS, compile_flag, None, "wait_flag", "flag",
              "dst_pipe waits until src_pipe has raised event_id (consumes it)"),
    InstrSpec("pipe_barrier", "sync", BARRIER_OPERANDS, compile_barrier, None, "barrier", "flag",
              "later instructions of pipe (or of every pipe: ALL) wait for earlier ones to finish"),
)
