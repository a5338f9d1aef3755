"""Logical and / or / not of bool tensors (``vlogic_*``), on the bytes 0/1 a bool tensor is in UB and GM.

and / or are vand / vor over 16-bit views (two bool bytes per lane; 0/1 bytes stay 0/1).  not is vnot over the
same view followed by vand with 0x0101 (a temporary filled by vector_dup), which turns 0 -> 1 and 1 -> 0 per
byte.  Compare results feeding a logic op are stored as bytes (see :mod:`te_compat.schedule.classify`).
"""
from __future__ import annotations

from te_compat.schedule import vec
from te_compat.schedule.common import ceil_div
from te_compat.schedule.emit_elewise import BINARY
from te_compat.schedule.env import ConstArg, NodeEnv, PlanEnv
from te_compat.schedule.layout import buffer_bytes
from te_compat.schedule.vec import Loc

_BYTE_ONES = 0x0101  # one 16-bit lane holding two bool bytes equal to 1


def temps(p: PlanEnv) -> list:
    return [buffer_bytes(p.chip, p.layout, "uint8")] if p.info.op == "not" else []


def emit(env: NodeEnv) -> None:
    if any(isinstance(arg, ConstArg) for arg in env.args):
        raise env.fail("a constant operand of a logical op")
    em, op = env.em, env.info.op
    n16 = ceil_div(env.n, 2)
    dst = Loc(env.out, 0, "uint16")
    srcs = [Loc(arg, 0, "uint16") for arg in env.args]
    if op == "not":
        vec.check(em, "vnot", "uint16")
        vec.check(em, "vand", "uint16")
        ones = Loc(env.temps[0], 0, "uint16")
        vec.dup(em, ones, n16, _BYTE_ONES)
        vec.flat(em, "vnot", {"dst": dst, "src": srcs[0]}, n16)
        vec.flat(em, "vand", {"dst": dst, "src0": dst, "src1": ones}, n16)
        return
    opcode = BINARY[op]
    vec.check(em, opcode, "uint16")
    vec.flat(em, opcode, {"dst": dst, "src0": srcs[0], "src1": srcs[1]}, n16)
