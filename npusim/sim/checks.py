"""The hardware checks, in one place.  Each raises a typed :mod:`npusim.errors.sim` error located at a :class:`Site`.

Checks mirror what real hardware, TIK's debugger or CANN's CPU debug mode would trip: accesses outside a buffer or
GM allocation, scope capacity, block alignment, repeat_times range, mask range, dtype support on the chip, and
the overlap rules of vector instructions.
"""
from __future__ import annotations

from dataclasses import dataclass

from npusim.errors.sim import (AlignmentError, CapacityError, InvalidOperandError, MaskError, OutOfBoundsError,
                               RepeatError, UnsupportedDtypeError)
from npusim.sim.geometry import MASK_WORD_BITS


@dataclass(frozen=True)
class Site:
    """Where an instruction lives: kernel name, pre-order instruction index and its printed form."""

    kernel: str
    instr_index: int
    text: str

    def error(self, cls, cause: str):
        """An error of class ``cls`` located here (the executor adds the block index)."""
        return cls(cause, kernel=self.kernel, instr_index=self.instr_index, operands=self.text)


def check_repeat(site: Site, repeat, max_repeat: int, allow_zero: bool = False) -> int:
    """repeat_times must be an int in [1, max_repeat] ([0, max_repeat] for run-time values, as TIK allows)."""
    low = 0 if allow_zero else 1
    if isinstance(repeat, bool) or not isinstance(repeat, int) or not low <= repeat <= max_repeat:
        raise site.error(RepeatError, f"repeat_times should be in the range of [{low}, {max_repeat}], "
                                      f"input repeat_times: {repeat!r}")
    return repeat


def check_int_range(site: Site, name: str, value, low: int, high: int) -> int:
    """An integer operand (stride, burst, count ...) must lie in [low, high]."""
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise site.error(InvalidOperandError, f"{name} should be in the range of [{low}, {high}], input: {value!r}")
    return value


def check_mask_count(site: Site, count, lanes: int) -> int:
    if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= lanes:
        raise site.error(MaskError, f"mask should be in the range of [1, {lanes}] for {lanes}-lane operands, "
                                    f"input mask: {count!r}")
    return count


def check_mask_pair(site: Site, high, low, lanes: int) -> tuple:
    for part, value in (("mask_h", high), ("mask_l", low)):
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 1 << MASK_WORD_BITS:
            raise site.error(MaskError, f"{part} should be in the range of [0, 2**{MASK_WORD_BITS}-1], "
                                        f"input: {value!r}")
    if lanes <= MASK_WORD_BITS and high != 0:
        raise site.error(MaskError, f"mask_h must be 0 for {lanes}-lane (32-bit) operands, input mask_h: {high:#x}")
    if high == 0 and low == 0:
        raise site.error(MaskError, "mask [0, 0] selects no lane")
    return high, low


def check_dtype(site: Site, chip, opcode: str, key: str) -> None:
    """The chip must support ``opcode`` with ``key`` (dtype, vconv conversion key or mmad key)."""
    if not chip.supports(opcode, key):
        known = ", ".join(sorted(chip.isa.get(opcode, ()))) or "none"
        raise site.error(UnsupportedDtypeError, f"{opcode} does not support {key} on {chip.name} "
                                                f"(supported: {known})")


def check_aligned(site: Site, what: str, byte_addr: int, align: int) -> None:
    """A local operand's start address must be ``align``-byte aligned."""
    if byte_addr % align:
        raise site.error(AlignmentError, f"Address align error, {what} address {byte_addr} (byte offset in its "
                                         f"scope) is not {align} Byte align")


def check_access(site: Site, what: str, buffer: str, first: int, last: int, lo: int, hi: int,
                 unit: str = "elements") -> None:
    """Items [first, last] (view indices, counted in ``unit``) must lie in the buffer's [lo, hi); messages use
    buffer offsets."""
    if first < lo or last >= hi:
        raise site.error(OutOfBoundsError,
                         f"{what} tensor {buffer} overflow: instruction accesses {unit} {first - lo}..{last - lo} "
                         f"but {buffer} holds {hi - lo} {unit} (AccessViolation: Memory out of range)")


def check_capacity(kernel_name: str, chip, scope: str, end_bytes: int, buffer_name: str) -> None:
    """A buffer ending at ``end_bytes`` must fit in the chip's ``scope``."""
    capacity = chip.scope_bytes(scope)
    if end_bytes > capacity:
        raise CapacityError(f"buffer {buffer_name} ends at byte {end_bytes} of {scope} but {chip.name}'s {scope} "
                            f"holds {capacity} bytes", kernel=kernel_name)
