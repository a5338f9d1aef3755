"""Compare and select: vcmpv to bit masks, vsel per repeat, and the bit <-> value conversions around them.

A compare writes one bit per element (``vcmpv``, packed little-endian, the same packing for every dtype).  A
select reads the bits of its repeat (vsel mode 0, the mode 910/310 have, takes one repeat's bits per
instruction).  Bool tensors that leave UB (outputs, other uses) are bytes 0/1: bits become 1.0/0.0 halves by
vsel, then bytes by vconv f162u8; bool bytes coming in become bits by vconv u82f16 and a compare with 0.
"""
from __future__ import annotations

from math import gcd
from typing import Optional

from te_compat.schedule import vec
from te_compat.schedule.common import UnsupportedPattern, ceil_div, itemsize, lanes_of, rep_stride
from te_compat.schedule.env import ConstArg, NodeEnv, PlanEnv, const_value
from te_compat.schedule.layout import buffer_bytes
from te_compat.schedule.vec import Loc

WIDEST_ELEM_BYTES = itemsize("int64")  # a repeat's narrowest lane count is the vector width over the widest element
SEL_VIEW = {"float16": "float16", "float32": "float32", "int32": "float32", "uint32": "float32",
            "int16": "float16", "uint16": "float16"}


# -- temps --------------------------------------------------------------------------------------------------------
def temps(p: PlanEnv) -> list:
    chip, repeat_bytes = p.chip, p.chip.repeat_bytes
    if p.info.kind == "cmp":
        sizes = [buffer_bytes(chip, p.layout, p.operand_dtype(pos)) for pos in (0, 1) if p.is_const(pos)]
        if p.index not in p.an.bits:
            sizes += [buffer_bytes(chip, p.layout, "bool", bits=True), buffer_bytes(chip, p.layout, "float16"),
                      repeat_bytes, repeat_bytes]
        return sizes
    sizes = [repeat_bytes for pos in (1, 2) if p.is_const(pos)]
    cond = p.info.operands[0]
    if cond.node not in p.an.bits:
        sizes += [buffer_bytes(chip, p.layout, "float16"), repeat_bytes,
                  buffer_bytes(chip, p.layout, "bool", bits=True)]
    return sizes


# -- compare ------------------------------------------------------------------------------------------------------
def vcmpv_chunk(chip) -> int:
    """Repeats per vcmpv: the most within ``chip.max_repeat`` whose bit output (lanes / 8 bytes a repeat) is whole
    blocks at every lane count (down to the narrowest, over the widest elements), so every chunk's output starts
    block-aligned (248 on the modelled chips)."""
    block_bits = chip.block_bytes * 8
    narrowest = chip.vector_width_bytes // WIDEST_ELEM_BYTES
    step = block_bits // gcd(block_bits, narrowest)
    chunk = chip.max_repeat - chip.max_repeat % step
    if chunk < 1:
        raise UnsupportedPattern(f"{chip.name}: max_repeat {chip.max_repeat} is under the {step} repeats a "
                                 f"block-aligned vcmpv output needs")
    return chunk


def vcmpv(em, cmp_op: str, bits, a: Loc, b: Loc, n: int, b_stride: Optional[int] = None) -> None:
    """bits[0:n] = a <cmp_op> b; ``b_stride`` (blocks) 0 re-reads b's first repeat (a constant), None steps b a
    repeat at a time like a."""
    vec.check(em, "vcmpv", a.dt)
    chip = em.chip
    lanes = lanes_of(chip, a.dt)
    nbytes = lanes // 8
    total = ceil_div(n, lanes)
    chunk, a_stride = vcmpv_chunk(chip), rep_stride(chip, a.dt)
    b_stride = a_stride if b_stride is None else b_stride
    for first in range(0, total, chunk):
        repeat = min(chunk, total - first)
        em.kb.vcmpv(cmp_op, bits.at(first * nbytes, "uint8"), a.ref(first * lanes),
                    b.ref(first * lanes if b_stride else 0), repeat, 1, 1, a_stride, b_stride)


def emit_cmp(env: NodeEnv) -> None:
    n, em = env.n, env.em
    dtypes = [env.plan.operand_dtype(pos) for pos in (0, 1)]
    temps = list(env.temps)
    locs = []
    for position, arg in enumerate(env.args):
        if isinstance(arg, ConstArg):
            temp = Loc(temps.pop(0), 0, dtypes[position])
            vec.dup(em, temp, n, _value(env, position))
            locs.append(temp)
        else:
            locs.append(Loc(arg))
    if locs[0].dt not in ("float16", "float32") or not em.chip.supports("vcmpv", locs[0].dt):
        raise env.fail(f"vcmpv does not support {locs[0].dt} on {em.chip.name}")
    if env.plan.index in env.plan.an.bits:
        vcmpv(em, env.info.op, env.out, locs[0], locs[1], n)
        return
    bits, half, ones, zeros = temps[:4]
    vcmpv(em, env.info.op, bits, locs[0], locs[1], n)
    bits_to_bytes(em, bits, Loc(env.out, 0, "uint8"), n, Loc(half, 0, "float16"), ones, zeros)


def _value(env: NodeEnv, position: int):
    arg = env.args[position]
    return arg.value if isinstance(arg, ConstArg) else const_value(env.plan.an, env.info.operands[position])


# -- select -------------------------------------------------------------------------------------------------------
def vsel(em, dst: Loc, bits, a: Loc, b: Loc, n: int, a_const: bool = False, b_const: bool = False) -> None:
    """dst[0:n] = bits ? a : b, one vsel per repeat (mode 0); a constant operand holds one repeat."""
    vec.check(em, "vsel", dst.dt)
    lanes = lanes_of(em.chip, dst.dt)
    full, tail = divmod(n, lanes)

    def one(mask, r):
        step = r * lanes
        em.kb.vsel(mask, 0, dst.ref(step), bits.at(r * (lanes // 8), "uint8"),
                   a.ref(0 if a_const else step), b.ref(0 if b_const else step), 1)
    if full > 1:
        with em.kb.for_range(0, full) as r:
            one(lanes, r)
    elif full == 1:
        one(lanes, 0)
    if tail:
        one(tail, full)


def emit_sel(env: NodeEnv) -> None:
    n, em, dtype = env.n, env.em, env.dtype
    view = SEL_VIEW.get(dtype)
    if view is None:
        raise env.fail(f"vsel has no {dtype} form")
    temps = list(env.temps)
    branches, consts = [], []
    for position in (1, 2):
        arg = env.args[position]
        if isinstance(arg, ConstArg):
            temp = Loc(temps.pop(0), 0, dtype)
            vec.dup(em, temp, lanes_of(em.chip, view), _value(env, position))
            branches.append(temp.as_dtype(view))
            consts.append(True)
        else:
            branches.append(Loc(arg, 0, view))
            consts.append(False)
    cond = env.args[0]
    if env.info.operands[0].node not in env.plan.an.bits:
        half, zeros, bits = temps[:3]
        cond = bytes_to_bits(em, Loc(cond, 0, "uint8"), n, Loc(half, 0, "float16"), zeros, bits)
    vsel(em, Loc(env.out, 0, view), cond, branches[0], branches[1], n, consts[0], consts[1])


# -- conversions ----------------------------------------------------------------------------------------------------
def bits_to_values(em, bits, dst: Loc, n: int, ones, zeros) -> None:
    """dst[0:n] = 1 where the bit is set else 0 (dst float16 or float32)."""
    lanes = lanes_of(em.chip, dst.dt)
    one, zero = Loc(ones, 0, dst.dt), Loc(zeros, 0, dst.dt)
    vec.dup(em, one, lanes, 1)
    vec.dup(em, zero, lanes, 0)
    vsel(em, dst, bits, one, zero, n, True, True)


def bits_to_bytes(em, bits, dst: Loc, n: int, half: Loc, ones, zeros) -> None:
    """Bool bytes 0/1 from bits, through float16 and vconv f162u8."""
    bits_to_values(em, bits, half, n, ones, zeros)
    vec.check(em, "vconv", "f162u8")
    vec.flat(em, "vconv", {"dst": dst, "src": half}, n, round_mode="")


def bytes_to_bits(em, src: Loc, n: int, half: Loc, zeros, bits):
    """Bits of bool bytes (nonzero = set)."""
    vec.check(em, "vconv", "u82f16")
    vec.flat(em, "vconv", {"dst": half, "src": src}, n, round_mode="")
    zero = Loc(zeros, 0, "float16")
    vec.dup(em, zero, lanes_of(em.chip, "float16"), 0)
    vcmpv(em, "ne", bits, half, zero, n, b_stride=0)
    return bits
