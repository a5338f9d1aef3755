"""TIK's build-time instruction checks, on immediate operands only (Scalar-dependent values are checked when the
kernel runs, by the simulator).  Texts are TIK's (shared/reference/tik.md "Errors"); limits come from the chip
(``max_repeat``, ``block_bytes``, ``lanes``) and :mod:`npusim.sim.geometry` (instruction-field widths).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from npusim.errors.tik import (TikAlignmentError, TikDtypeError, TikMaskError, TikOperandRangeError, TikOverlapError,
                               TikRepeatError, TikScopeError, TikSyntaxError, TikTensorOverflowError)
from npusim.sim.builder import TensorHandle, TensorRef, raw
from npusim.sim.dtypes import itemsize
from npusim.sim.geometry import MASK_WORD_BITS


@dataclass(frozen=True)
class Operand:
    """One tensor operand of an instruction: its role ("dst", "src0" ...), tensor, element offset (int or
    expression), block and repeat strides (in blocks; None when the instruction has none)."""

    role: str
    tensor: Any
    offset: Any
    blk: Any = 1
    rep: Any = 0

    @property
    def dtype(self) -> str:
        return self.tensor.view_dtype or self.tensor.dtype

    @property
    def kind(self) -> str:
        return "dst" if self.role.startswith("dst") else "src"


def operand(role: str, value, blk=1, rep=0) -> Operand:
    """The Operand of a tensor or element view; TikSyntaxError for anything else."""
    if isinstance(value, TensorHandle):
        return Operand(role, value, 0, blk, rep)
    if isinstance(value, TensorRef):
        return Operand(role, value.tensor, raw(value.offset), blk, rep)
    raise TikSyntaxError(f"{role} should be a Tensor, input type: {type(value).__name__}")


def immediate(value):
    """The int value of an immediate operand, None for an Expr / Scalar."""
    value = raw(value)
    if isinstance(value, bool):
        return int(value)
    return value if isinstance(value, int) else None


def check_range(name: str, value, low: int, high: int):
    """An immediate int operand must lie in [low, high] (Exprs are checked when the kernel runs)."""
    if isinstance(raw(value), float):
        raise TikOperandRangeError(f"{name} should be an integer, input {name}: {value!r}")
    number = immediate(value)
    if number is not None and not low <= number <= high:
        raise TikOperandRangeError(f"{name} should be in the range of [{low}, {high}], input {name}: {number}")
    return number


def check_repeat(chip, repeat):
    """repeat_times in [1, max_repeat] when immediate."""
    number = immediate(repeat)
    if isinstance(raw(repeat), float) or (number is not None and not 1 <= number <= chip.max_repeat):
        raise TikRepeatError(f"repeat_times should be in the range of [1, {chip.max_repeat}], input repeat_times: "
                             f"{raw(repeat)!r}")
    return number


def check_scope(opname: str, ops, scope: str = "UB") -> None:
    for op in ops:
        if op.tensor.scope != scope:
            raise TikScopeError(f"{opname}: {op.role}'s scope must be {scope}, input scope is: {op.tensor.tik_scope}")


def check_same_dtype(opname: str, ops) -> None:
    first = ops[0]
    for op in ops[1:]:
        if op.dtype != first.dtype:
            raise TikDtypeError(f"{opname}: dtype of {first.role} and {op.role} should be the same, input "
                                f"{first.role} dtype: {first.dtype}, {op.role} dtype: {op.dtype}")


def check_chip_dtype(chip, opname: str, opcode: str, key: str) -> None:
    if not chip.supports(opcode, key):
        known = ", ".join(sorted(chip.isa.get(opcode, ()))) or "none"
        raise TikDtypeError(f"{opname} doesn't support {key} on {chip.name} (supported: {known})")


def lanes_of(chip, ops) -> int:
    """Lanes per repeat: the repeat bytes over the widest operand's element size."""
    return chip.lanes(max(itemsize(op.dtype) for op in ops))


def last_lane(mask, lanes: int, dtype_bits: int):
    """Highest active lane of an immediate mask (count or [mask_h, mask_l]); None if not immediate."""
    if isinstance(mask, (list, tuple)):
        if len(mask) != 2:
            raise TikMaskError(f"mask list should be [mask_h, mask_l], input mask: {mask!r}")
        high, low = immediate(mask[0]), immediate(mask[1])
        if high is None or low is None:
            return None
        for part, value in (("mask_h", high), ("mask_l", low)):
            if not 0 <= value < 1 << MASK_WORD_BITS:
                raise TikMaskError(f"{part} should be in the range of [0, 2**{MASK_WORD_BITS}-1], input {part}: "
                                   f"{value}")
        if lanes <= MASK_WORD_BITS and high:
            raise TikMaskError(f"mask_h should be 0 when dtype bit length is {dtype_bits}, input mask_h: {high}")
        if high == 0 and low == 0:
            raise TikMaskError("mask_h and mask_l should not be all 0")
        bits = (high << MASK_WORD_BITS) | low
        return bits.bit_length() - 1
    count = immediate(mask)
    if isinstance(raw(mask), float):
        raise TikMaskError(f"mask should be an integer or a list [mask_h, mask_l], input mask: {mask!r}")
    if count is None:
        return None
    if count > lanes:
        raise TikMaskError(f"mask should not be more than {lanes} when dtype bit length is {dtype_bits}, "
                           f"input mask: {count}")
    if count < 1:
        raise TikMaskError(f"mask should be in the range of [1, {lanes}], input mask: {count}")
    return count - 1


def span(chip, op: Operand, repeat: int, last: int):
    """(first, last) element of ``op`` an immediate vector instruction touches (strides are non-negative), or None
    if any part is an Expr.  ``last``: the highest active lane."""
    offset, blk, rep = immediate(op.offset), immediate(op.blk), immediate(op.rep)
    if None in (offset, blk, rep):
        return None
    per_block = chip.block_elems(itemsize(op.dtype))
    block = last // per_block
    in_repeat = block * blk * per_block + last % per_block
    if block:  # the block before the last one is full: with block stride 0 its tail may lie further out
        in_repeat = max(in_repeat, (block - 1) * blk * per_block + per_block - 1)
    return offset, offset + (repeat - 1) * rep * per_block + in_repeat


def check_extent(op: Operand, need_last: int) -> None:
    """``op`` must hold element ``need_last`` (offsets count the operand's dtype)."""
    have = op.tensor.size
    if need_last >= have:
        raise TikTensorOverflowError(f"{op.kind} tensor overflow, instruction need {need_last + 1} but only {have}")


def check_aligned(chip, op: Operand) -> None:
    """A local operand's start must be block-aligned (GM needs element alignment only)."""
    offset = immediate(op.offset)
    if op.tensor.scope == "GM" or offset is None:
        return
    if (offset * itemsize(op.dtype)) % chip.block_bytes:
        raise TikAlignmentError(f"Address align error, {op.role} is not {chip.block_bytes} Byte align")


def check_overlap(chip, opname: str, dst: Operand, src: Operand, repeat, last: int) -> None:
    """TIK's overlap rules between dst and one src of the same buffer (immediates only)."""
    if dst.tensor.name != src.tensor.name or repeat is None:
        return
    values = [immediate(v) for v in (dst.offset, src.offset, dst.blk, src.blk, dst.rep, src.rep)]
    if None in values:
        return
    d_off, s_off, d_blk, s_blk, d_rep, s_rep = values
    d_bytes, s_bytes = d_off * itemsize(dst.dtype), s_off * itemsize(src.dtype)
    same = d_bytes == s_bytes and d_blk == s_blk and d_rep == s_rep and dst.dtype == src.dtype
    if same:
        return
    d_span, s_span = span(chip, dst, 1, last), span(chip, src, 1, last)
    d_lo, d_hi = d_span[0] * itemsize(dst.dtype), (d_span[1] + 1) * itemsize(dst.dtype)
    s_lo, s_hi = s_span[0] * itemsize(src.dtype), (s_span[1] + 1) * itemsize(src.dtype)
    if repeat == 1:
        if d_lo < s_hi and s_lo < d_hi:
            raise TikOverlapError(f"{opname} address overlapping error. when repeat_times=1, only support dst and "
                                  f"{src.role} 100% same, and stride must be the same too")
        return
    step = s_rep * chip.block_bytes  # the src of iteration N+1
    if d_lo < s_hi + step and s_lo + step < d_hi:
        raise TikOverlapError(f"{opname} address overlapping error. when repeat_times>1, dst of iteration N "
                              f"should not overlap {src.role} of iteration N+1")


__all__ = ["Operand", "check_aligned", "check_chip_dtype", "check_extent", "check_overlap", "check_range",
           "check_repeat", "check_same_dtype", "check_scope", "immediate", "lanes_of", "last_lane", "operand", "span"]
