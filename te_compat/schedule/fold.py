"""Constant folding: an element-wise node whose operands are all constants becomes a constant.

``broadcast`` constants and immediates combined only with each other (``vadd(broadcast(c1), broadcast(c2))``,
``cast_to(broadcast(c))``, ``floor(broadcast(c))`` ...) are evaluated here, on the host, in the node's dtype and
with exactly the arithmetic the vector instruction would apply: the numpy semantics of the simulator's own
instruction rows (``npusim.sim.isa.ISA``) on one-element arrays, so a float16 add rounds once to half, a division
on a chip without ``vdiv`` is ``vrec`` then ``vmul``, and a cast runs the same vconv chain (intermediate dtype and
rounding mode included) that :mod:`te_compat.schedule.emit_cast` would emit.  Every operand is first held in its
dtype as ``vector_dup`` or a scalar register holds it (float16 rounding, integers wrapping); a computed float
result saturates (inf -> max, NaN -> 0) on a chip in saturation mode, as the simulator's instructions do.

A node is left alone when the chip has no instruction for it (its emitter then reports that honestly).
"""
from __future__ import annotations

import operator
from typing import Optional

import numpy as np

from npusim.sim.isa import ISA
from npusim.sim.isa.rounding import ROUND_MODE_NAMES
from npusim.sim.isa.saturate import saturator_for
from te_compat.schedule.common import UnsupportedPattern
from te_compat.schedule.emit_cast import conversion_steps, is_deq
from te_compat.schedule.emit_elewise import BINARY as _BINARY, UNARY as _UNARY, VS as _VS
from te_compat.schedule.operands import OpInfo, operand_dtype

_BITWISE = {"and": np.bitwise_and, "or": np.bitwise_or}
_CMP = {"eq": operator.eq, "ne": operator.ne, "lt": operator.lt, "gt": operator.gt, "ge": operator.ge,
        "le": operator.le}
FOLDABLE = ("unary", "vs", "binary", "axpy", "fma", "cmp", "sel", "cast", "logic", "bcast")


def fold_constants(graph, infos: dict, chip) -> dict:
    """``infos`` with every constant-only element-wise node replaced by ``OpInfo("const", scalar=value)``
    (nodes in topological order, so whole constant subgraphs fold)."""
    folded = dict(infos)
    for node in graph.nodes:
        info = folded[node.index]
        if info.kind not in FOLDABLE or not info.operands:
            continue
        values = _operand_values(graph, folded, node.index)
        if values is None:
            continue
        result = _evaluate(chip, info, values, node.dtype)
        if result is not None:
            folded[node.index] = OpInfo("const", scalar=_python(result, node.dtype))
    return folded


def in_dtype(value, dtype: str) -> Optional[np.ndarray]:
    """``value`` as a one-element array of ``dtype`` the way vector_dup / a scalar register holds it (bool as
    uint8 0/1, integers wrapping); None when it has no such form (NaN as an integer)."""
    if dtype == "bool":
        return np.array([1 if value else 0], np.uint8)
    npdt = np.dtype(dtype)
    if npdt.kind in "iu":
        try:
            bits = npdt.itemsize * 8
            wrapped = int(value) & ((1 << bits) - 1)
        except (TypeError, ValueError, OverflowError):
            return None
        if npdt.kind == "i" and wrapped >= 1 << (bits - 1):
            wrapped -= 1 << bits
        return np.array([wrapped], npdt)
    with np.errstate(all="ignore"):
        return np.array([value], npdt)


def _python(result: np.ndarray, dtype: str):
    item = result.reshape(-1)[0]
    if dtype == "bool":
        return bool(item)
    return float(item) if np.dtype(dtype).kind == "f" else int(item)


def _operand_values(graph, infos: dict, index: int) -> Optional[list]:
    """One-element arrays of the operands (each in its own dtype), or None if any operand is not a constant."""
    values = []
    for position, operand in enumerate(infos[index].operands):
        if operand.is_const:
            value = operand.value
        elif infos[operand.node].kind == "const":
            value = infos[operand.node].scalar
        else:
            return None
        array = in_dtype(value, operand_dtype(graph, infos, index, position))
        if array is None:
            return None
        values.append(array)
    return values


def _evaluate(chip, info: OpInfo, values: list, dtype: str) -> Optional[np.ndarray]:
    """The node's value (one-element array in its dtype, bool as uint8), None when not folded."""
    evaluate = {"unary": _unary, "vs": _vs, "binary": _binary, "axpy": _axpy, "fma": _fma, "cmp": _cmp,
                "sel": _sel, "cast": _cast, "logic": _logic, "bcast": _bcast}[info.kind]
    with np.errstate(all="ignore"):
        return evaluate(chip, info, values, dtype)


def _computed(chip, values: np.ndarray) -> np.ndarray:
    """A computing instruction's result as the chip's overflow mode leaves it."""
    fix = saturator_for(chip, values.dtype)
    return np.asarray(fix(values), values.dtype) if fix is not None else values


def _run(chip, opcode: str, inputs: list, dtype: str, scalar=None) -> np.ndarray:
    npdt = np.dtype(dtype)
    return _computed(chip, np.asarray(ISA[opcode].semantics(inputs, scalar, npdt), npdt))


def _bits(value: np.ndarray) -> np.ndarray:
    return value.view(np.dtype(f"uint{value.dtype.itemsize * 8}"))


def _unary(chip, info: OpInfo, values: list, dtype: str):
    op, (x,) = info.op, values
    if op == "not":
        return np.invert(_bits(x)).view(x.dtype) if chip.supports("vnot", "uint16") else None
    if chip.supports(_UNARY[op], dtype):
        return _run(chip, _UNARY[op], [x], dtype)
    if op == "relu" and (chip.supports("vmaxs", dtype) or chip.supports("vmax", dtype)):
        return _run(chip, "vmax", [x, np.zeros_like(x)], dtype)
    return None


def _vs(chip, info: OpInfo, values: list, dtype: str):
    scalar = in_dtype(info.scalar, dtype)
    if scalar is None or not (chip.supports(_VS[info.op], dtype) or chip.supports(_BINARY[info.op], dtype)):
        return None
    return _run(chip, _BINARY[info.op], [values[0], scalar], dtype)


def _binary(chip, info: OpInfo, values: list, dtype: str):
    op, (a, b) = info.op, values
    if op in _BITWISE:
        return _BITWISE[op](_bits(a), _bits(b)).view(a.dtype) if chip.supports(f"v{op}", "uint16") else None
    if op == "div" and not chip.supports("vdiv", dtype):
        if chip.supports("vrec", dtype) and chip.supports("vmul", dtype):     # emit_elewise's vrec + vmul
            return _run(chip, "vmul", [a, _run(chip, "vrec", [b], dtype)], dtype)
        return None
    if chip.supports(_BINARY[op], dtype) or (op in _VS and chip.supports(_VS[op], dtype)):
        return _run(chip, _BINARY[op], [a, b], dtype)
    return None


def _axpy(chip, info: OpInfo, values: list, dtype: str):
    scalar = in_dtype(info.scalar, dtype)
    if scalar is None or not chip.supports("vaxpy", dtype):
        return None
    return _run(chip, "vaxpy", values, dtype, scalar[0])


def _fma(chip, info: OpInfo, values: list, dtype: str):
    if not chip.supports("vmla", dtype):
        return None
    result = _run(chip, "vmla", values, dtype)
    if info.op == "fma_relu":
        result = _computed(chip, np.maximum(result, result.dtype.type(0)))
    return result


def _cmp(chip, info: OpInfo, values: list, dtype: str):
    a, b = values
    if a.dtype != b.dtype or str(a.dtype) not in ("float16", "float32") or not chip.supports("vcmpv", str(a.dtype)):
        return None
    return np.asarray(_CMP[info.op](a, b), np.uint8)


def _sel(chip, info: OpInfo, values: list, dtype: str):
    cond, a, b = values
    return a if cond[0] else b


def _cast(chip, info: OpInfo, values: list, dtype: str):
    (x,) = values
    src = str(x.dtype)                      # a bool source is held as uint8 bytes, as emit_cast converts it
    if dtype == "bool":
        return None
    if src == dtype:
        return x.astype(dtype)
    try:
        steps = conversion_steps(chip, src, dtype, info.op)
    except UnsupportedPattern:
        return None
    current = x
    for step in steps:
        step_src, step_dst, mode = step
        deqscale = 1.0 if is_deq(chip, step) else None
        converted = ISA["vconv"].semantics(current, np.dtype(step_src), np.dtype(step_dst),
                                           ROUND_MODE_NAMES[mode.lower()], deqscale)
        current = _computed(chip, np.asarray(converted, step_dst))
    return current


def _logic(chip, info: OpInfo, values: list, dtype: str):
    if info.op == "not":
        return (1 - values[0]).astype(np.uint8) if chip.supports("vnot", "uint16") else None
    func = _BITWISE[info.op]
    return func(values[0], values[1]).astype(np.uint8) if chip.supports(f"v{info.op}", "uint16") else None


def _bcast(chip, info: OpInfo, values: list, dtype: str):
    return values[0]
