"""Dtype conversions as single ``vconv`` steps the current chip has, and TBE's auto-cast rule.

Every conversion node this package emits is ONE vconv step the chip supports (key as CANN names it: "f322f16",
"f162s32z", "deq" for int32->float16, "s82f16" ...).  Where no direct step exists the value goes through float32
or float16, as TBE's ``_cast`` does:

* int8/uint8 -> float32:          s82f16 / u82f16, then f162f32
* int8/uint8 -> int32:            s82f16 / u82f16, then f162s32<mode> (exact: the value is integral)
* int32 -> float32 on Ascend310:  deq (int32->float16), then f162f32 (the 310 has no s322f32)
* float32 -> int8/uint8:          f322f16, then f162s8 / f162u8
* float32 -> int32 on Ascend310:  f322f16, then the float16 path (the 310 has no f322s32*)
* bool (vcmp results) -> float:   u82f16 (a bool is one byte), then onwards

int32 -> int8/uint8/int16/uint16 wraps (two's complement) as TBE documents; no vconv step does that, so it is one
``cast_wrap`` node, which the scheduler runs on the scalar pipe.
"""
from __future__ import annotations

import tvm
from tvm import te

from npusim.errors import TbeArgumentError

from te_compat.dsl.checks import FLOAT_DTYPES, dtype_of, static_shape
from te_compat.dsl.nodes import make_node
from te_compat.dsl.support import chip_name, dsl_supports, instr_supports, supported_dtypes

_SHORT = {"int8": "s8", "uint8": "u8", "int16": "s16", "uint16": "u16", "float16": "f16", "int32": "s32",
          "uint32": "u32", "float32": "f32", "bool": "u8"}
INT_DTYPES = ("int8", "uint8", "int16", "uint16", "int32", "uint32")
# Modes tried for a float->int step whose data is already integral (every mode gives the same value).
_INTEGRAL_MODES = ("none", "z", "r", "f", "c", "a")


def vconv_key(src: str, dst: str, mode: str = "none") -> str:
    """CANN's vconv key of one conversion step, e.g. ("float16", "int32", "f") -> "f162s32f"."""
    if (src, dst) == ("int32", "float16"):
        return "deq"
    suffix = "" if mode in ("", "none") else mode
    return f"{_SHORT.get(src, src)}2{_SHORT.get(dst, dst)}{suffix}"


def step_supported(src: str, dst: str, mode: str = "none") -> bool:
    """Whether the current chip has the single vconv step ``src -> dst`` with ``mode``."""
    return instr_supports("vconv", vconv_key(src, dst, mode))


def _round_half_away(value):
    """Round half away from zero, exact in the value's own dtype (no x + 0.5, which rounds for large x)."""
    dtype = dtype_of(value)
    whole = te.trunc(value)
    one = tvm.tirx.const(1, dtype)
    step = tvm.tirx.if_then_else(value >= tvm.tirx.const(0, dtype), one, -one)
    return tvm.tirx.if_then_else(te.abs(value - whole) >= tvm.tirx.const(0.5, dtype), whole + step, whole)


_ROUNDERS = {"none": te.round, "r": te.round, "a": _round_half_away, "f": te.floor, "c": te.ceil, "z": te.trunc}


def conversion_expr(value, src: str, dst: str, mode: str):
    """The TVM expression of one vconv step: float->int rounds with ``mode`` ("none" = half-even) first."""
    if src in FLOAT_DTYPES and dst in INT_DTYPES:
        return _ROUNDERS[mode](value).astype(dst)
    return value.astype(dst)


def cast_step(x, dst: str, mode: str = "none", tag: str = "elewise_single_cast", func: str = "cast_to",
              note: str | None = None):
    """One vconv node ``x -> dst`` with rounding ``mode``; raises if the chip lacks that step.  ``note``: why an
    auto-cast made this step (kept in the node's ``autocast`` attr, read back by :func:`autocast_notes`)."""
    src = dtype_of(x)
    key = vconv_key(src, dst, mode)
    if not instr_supports("vconv", key):
        raise TbeArgumentError(f"{func}: {chip_name()} has no vconv {key} ({src} -> {dst}, mode {mode})")
    shape = static_shape(func, x)
    attrs = {"round_mode": mode, **({AUTOCAST_ATTR: note} if note else {})}
    return make_node(shape, lambda *i: conversion_expr(x(*i), src, dst, mode), tag, attrs, prefix="cast")


def _integral_mode(src: str, dst: str):
    """A mode for the step ``src -> dst`` on integral data, or None when the chip has no such step."""
    modes = _INTEGRAL_MODES if src in FLOAT_DTYPES and dst in INT_DTYPES else ("none",)
    for mode in modes:
        if step_supported(src, dst, mode):
            return mode
    return None


def conversion_path(src: str, dst: str):
    """Steps [(dtype, mode), ...] converting integral-or-float data ``src -> dst`` (direct, via f32, via f16).

    Not for float -> int of arbitrary floats (that needs a rounding choice: see :func:`cast_to`).
    """
    if src == dst:
        return []
    for route in ([dst], ["float32", dst], ["float16", dst]):
        if len(route) > 1 and route[0] in (src, dst):
            continue
        steps, current = [], src
        for nxt in route:
            mode = _integral_mode(current, nxt)
            if mode is None:
                break
            steps.append((nxt, mode))
            current = nxt
        else:
            return steps
    return None


def can_convert(src: str, dst: str) -> bool:
    """Whether :func:`convert` can turn ``src`` data into ``dst`` on the current chip."""
    return conversion_path(src, dst) is not None


def convert(func: str, x, dst: str, note: str | None = None):
    """``x`` converted to ``dst`` through supported vconv steps (``x`` itself when already ``dst``); ``note`` goes
    on the last step (see :func:`cast_step`)."""
    src = dtype_of(x)
    path = conversion_path(src, dst)
    if path is None:
        raise TbeArgumentError(f"{func}: {chip_name()} cannot convert {src} to {dst} (no vconv step or chain "
                               "through float32/float16)")
    for number, (step_dtype, mode) in enumerate(path, 1):
        x = cast_step(x, step_dtype, mode, func=func, note=note if number == len(path) else None)
    return x


def _direct_to(src: str, dst: str) -> bool:
    return src == dst or _integral_mode(src, dst) is not None


def compute_dtype(func: str, opcodes: tuple, dtypes) -> str:
    """The dtype an op computes in (TBE's auto-cast): the inputs' dtype when all agree and every instruction in
    ``opcodes`` supports it; else float32 when supported and each input converts to it in one step; else float16."""
    unique = sorted(set(dtypes))

    def supported(dtype):
        return all(dsl_supports(op, dtype) for op in opcodes)

    if len(unique) == 1 and supported(unique[0]):
        return unique[0]
    if supported("float32") and all(_direct_to(d, "float32") for d in unique):
        return "float32"
    if supported("float16") and all(can_convert(d, "float16") for d in unique):
        return "float16"
    table = ", ".join(f"{op}: {'/'.join(supported_dtypes(op)) or 'none'}" for op in opcodes)
    raise TbeArgumentError(f"{func}: input dtype {'/'.join(unique)} is not supported on {chip_name()} ({table}) "
                           "and cannot be cast to a supported float dtype")


def autocast(func: str, opcodes: tuple, *tensors):
    """(dtype, tensors converted to it) following :func:`compute_dtype`.  A conversion it makes carries a note
    naming the function, the instruction and the cast (what an output-dtype error reports later)."""
    dtypes = [dtype_of(t) for t in tensors]
    dtype = compute_dtype(func, opcodes, dtypes)
    return dtype, tuple(convert(func, t, dtype, _autocast_note(func, opcodes, dtypes, src, dtype))
                        for t, src in zip(tensors, dtypes))


def _autocast_note(func: str, opcodes: tuple, dtypes: list, src: str, dst: str):
    """Why auto-cast turned a ``src`` input of ``func`` into ``dst`` (None when it did not)."""
    if src == dst:
        return None
    if len(set(dtypes)) > 1:
        why = f"its inputs differ in dtype ({', '.join(dtypes)})"
    else:
        lacking = [op for op in opcodes if not dsl_supports(op, src)]
        table = ", ".join(f"{op}: {'/'.join(supported_dtypes(op)) or 'none'}" for op in lacking)
        why = f"{'/'.join(lacking)} has no {src} on {chip_name()} ({table})"
    return f"{func}: {why}, so TBE's auto-cast computed it in {dst} (cast {src} -> {dst})"


#: the attr of a conversion node an auto-cast made: the note saying why
AUTOCAST_ATTR = "autocast"


def autocast_notes(tensor) -> tuple:
    """The auto-cast notes in the graph of ``tensor`` (a TVM tensor), in producer-first order, each once: what
    changed dtypes on the way to it."""
    notes, seen, order = [], set(), []
    stack = [tensor]
    while stack:
        op = stack.pop().op
        if op in seen:
            continue
        seen.add(op)
        order.append(op)
        stack.extend(op.input_tensors)
    for op in reversed(order):
        note = (getattr(op, "attrs", None) or {}).get(AUTOCAST_ATTR)
        if note is not None and str(note) not in notes:
            notes.append(str(note))
    return tuple(notes)


def wrap_int(func: str, x, dst: str):
    """int32 -> a narrower int, wrapping (two's complement); a ``cast_wrap`` node (scalar-pipe on the device)."""
    shape = static_shape(func, x)
    return make_node(shape, lambda *i: x(*i).astype(dst), "cast_wrap", {"round_mode": "none"}, prefix="cast")
