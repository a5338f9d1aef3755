"""Casts and roundings: vconv with the node's rounding mode, keyed as CANN names it (``f322s32z`` ...).

A conversion the chip has directly is one vconv; otherwise it goes through float32 or float16 (two vconvs, the
rounding mode on the step that reaches the integer type), as TBE's cast_to does.  int32 -> float16 on a chip
without s322f16 (Ascend310) is the dequantising vconv with scale 1.0.  A float -> int cast with no
mode truncates (TBE's cast_to).  A bool source held as bits becomes values through vsel; bool bytes convert
as uint8.
"""
from __future__ import annotations

from te_compat.schedule import vec
from te_compat.schedule.common import UnsupportedPattern
from te_compat.schedule.emit_cmpsel import bits_to_values
from te_compat.schedule.env import ConstArg, NodeEnv, PlanEnv, same_buffer
from te_compat.schedule.layout import buffer_bytes
from te_compat.schedule.vec import Loc

SHORT = {"int8": "s8", "uint8": "u8", "int16": "s16", "uint16": "u16", "float16": "f16", "int32": "s32",
         "uint32": "u32", "float32": "f32", "bool": "u8"}
FLOAT = ("float16", "float32")


def conv_key(src: str, dst: str, mode: str) -> str:
    return f"{SHORT[src]}2{SHORT[dst]}{mode}"


def is_deq(chip, step: tuple) -> bool:
    """int32 -> float16 without an s322f16 form: the dequantising vconv with scale 1.0 (CANN's "deq")."""
    src, dst, mode = step
    return (src, dst) == ("int32", "float16") and not chip.supports("vconv", conv_key(*step)) and \
        mode == "" and chip.supports("vconv", "deq")


def _step_supported(chip, step: tuple) -> bool:
    return chip.supports("vconv", conv_key(*step)) or is_deq(chip, step)


def conversion_steps(chip, src: str, dst: str, mode: str) -> list:
    """[(src, dst, mode), ...] vconv steps from src to dst the chip supports (UnsupportedPattern if none)."""
    src = "uint8" if src == "bool" else src
    if src not in SHORT or dst not in SHORT or dst == "bool":
        raise UnsupportedPattern(f"no vconv path from {src} to {dst}")
    modes = [mode] + (["z"] if mode == "" and src in FLOAT and dst not in FLOAT else [])
    candidates = [[(src, dst, m)] for m in modes]
    for mid in ("float32", "float16"):
        if mid not in (src, dst):
            candidates += [[(src, mid, ""), (mid, dst, m)] for m in modes]
    for steps in candidates:
        if all(_step_supported(chip, step) for step in steps):
            return steps
    raise UnsupportedPattern(f"{chip.name} has no vconv path from {src} to {dst} (mode {mode or 'none'!r})")


def _source(p: PlanEnv) -> tuple:
    """(source dtype, from bits?) of a cast node."""
    operand = p.info.operands[0]
    if operand.node in p.an.bits:
        return "bits", True
    return p.an.graph.nodes[operand.node].dtype, False


def _bits_target(chip, dst: str) -> str:
    return dst if dst in FLOAT and chip.supports("vsel", dst) else "float16"


def temps(p: PlanEnv) -> list:
    src, from_bits = _source(p)
    dst = p.node.dtype
    if from_bits:
        first = _bits_target(p.chip, dst)
        if first == dst:
            return [p.chip.repeat_bytes, p.chip.repeat_bytes]
        steps = conversion_steps(p.chip, first, dst, p.info.op)
        return [p.chip.repeat_bytes, p.chip.repeat_bytes, buffer_bytes(p.chip, p.layout, first)] + \
            [buffer_bytes(p.chip, p.layout, step[1]) for step in steps[:-1]]
    if src == dst or (src == "bool" and dst == "uint8"):
        return []
    steps = conversion_steps(p.chip, src, dst, p.info.op)
    return [buffer_bytes(p.chip, p.layout, step[1]) for step in steps[:-1]]


def emit(env: NodeEnv) -> None:
    p, em, n = env.plan, env.em, env.n
    src, from_bits = _source(p)
    dst = env.dtype
    out = Loc(env.out, 0, "uint8" if dst == "bool" else dst)
    if from_bits:
        first = _bits_target(em.chip, dst)
        if first == dst:
            bits_to_values(em, env.args[0], out, n, env.temps[0], env.temps[1])
            return
        stage = Loc(env.temps[2], 0, first)
        bits_to_values(em, env.args[0], stage, n, env.temps[0], env.temps[1])
        run_steps(em, conversion_steps(em.chip, first, dst, env.info.op), stage, out, n, env.temps[3:])
        return
    if isinstance(env.args[0], ConstArg):      # folded or materialized by the analysis; never expected here
        raise env.fail("a constant source (no UB tensor to convert)")
    source = Loc(env.args[0], 0, "uint8" if src == "bool" else src)
    if src == dst or (src == "bool" and dst == "uint8"):
        if not same_buffer(env.args[0], env.out):
            vec.copy(em, out, source, n * _isz(out.dt))
        return
    run_steps(em, conversion_steps(em.chip, src, dst, env.info.op), source, out, n, env.temps)


def _isz(dtype: str) -> int:
    from te_compat.schedule.common import itemsize
    return itemsize(dtype)


def run_steps(em, steps: list, src: Loc, dst: Loc, n: int, temps: tuple) -> None:
    """Emit the vconv chain src -> ... -> dst (intermediates in ``temps``)."""
    current = src
    for i, (_, to, mode) in enumerate(steps):
        target = dst if i == len(steps) - 1 else Loc(temps[i], 0, to)
        deq = {"deqscale": 1.0} if is_deq(em.chip, steps[i]) else {}
        vec.flat(em, "vconv", {"dst": target, "src": current}, n, round_mode=mode, **deq)
        current = target
