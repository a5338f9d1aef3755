"""Errors of the simulated Ascend device (``npusim.sim``).

Every check the simulator makes (the ones real hardware, TIK's debugger or CANN's CPU debug mode would trip) raises
one of the classes below.  They all derive from :class:`SimulatorError`, itself a :class:`KernelRuntimeError` (so
``except RuntimeError`` keeps working, as TIK raises RuntimeError at ``err_msg_level=1``).

A kernel-level error carries where it happened: ``kernel`` (name), ``block`` (block index, or None for a check made
before any block ran), ``instr_index`` (pre-order index of the instruction in the kernel body) and ``operands``
(the instruction printed with its operands).  The message is built from these fields plus ``cause``.
"""
from npusim.errors.base import KernelRuntimeError, NpusimError, OpValueError


class SimulatorError(KernelRuntimeError):
    """Root of the simulator's errors.

    cause: what went wrong, e.g. "repeat_times 300 outside [1, 255]".
    kernel / block / instr_index / operands: where (each may be None when unknown).
    """

    def __init__(self, cause: str, *, kernel=None, block=None, instr_index=None, operands=None):
        self.cause = cause
        self.kernel = kernel
        self.block = block
        self.instr_index = instr_index
        self.operands = operands
        super().__init__(cause)

    def locate(self, *, kernel=None, block=None, instr_index=None, operands=None) -> "SimulatorError":
        """Fill the location fields that are still unknown; returns self (for ``raise err.locate(...)``)."""
        if self.kernel is None:
            self.kernel = kernel
        if self.block is None:
            self.block = block
        if self.instr_index is None:
            self.instr_index = instr_index
        if self.operands is None:
            self.operands = operands
        return self

    def __str__(self) -> str:
        where = []
        if self.kernel is not None:
            where.append(f"kernel '{self.kernel}'")
        if self.block is not None:
            where.append(f"block {self.block}")
        if self.instr_index is not None:
            where.append(f"instruction #{self.instr_index}")
        head = ", ".join(where)
        if self.operands:
            head = f"{head} `{self.operands}`" if head else f"`{self.operands}`"
        return f"{head}: {self.cause}" if head else self.cause


class OutOfBoundsError(SimulatorError):
    """An access outside its buffer or GM allocation (TIK: "Memory out of range" / AccessViolation)."""


class CapacityError(SimulatorError):
    """Buffers declared in a scope exceed the chip's capacity of that scope (e.g. UB 256 KB)."""


class AlignmentError(SimulatorError):
    """An operand address that must be 32-byte aligned is not (TIK: "Address align error")."""


class RepeatError(SimulatorError):
    """repeat_times outside [1, 255] (or [0, 255] when given at run time)."""


class MaskError(SimulatorError):
    """A vector mask outside its range (count 1..128 for 16-bit, 1..64 for 32-bit lanes; pair bits too high/zero)."""


class UnsupportedDtypeError(SimulatorError):
    """The instruction does not support this dtype (or conversion) on the chip in use."""


class OverlapError(SimulatorError):
    """dst and src overlap in a way the hardware does not allow (partial overlap, or repeat N writes N+1's src)."""


class InvalidOperandError(SimulatorError):
    """An operand of the wrong kind, scope or range (stride, burst, pipe name, event id, unknown buffer ...)."""


class SyncError(SimulatorError):
    """Pipe synchronisation that would hang real hardware (a wait_flag whose set_flag never comes)."""


class KernelFormatError(SimulatorError):
    """A kernel file or kernel description that cannot be read (bad magic, unknown version, malformed data)."""


class DeviceMemoryError(SimulatorError):
    """Misuse of device memory through the runtime: bad or freed pointer, double free, copy out of range."""


class UnknownChipError(NpusimError, ValueError):
    """A chip (SoC) name npusim has no model for; the message lists the known ones."""


class ChipModelError(OpValueError):
    """A chip YAML file that is malformed: missing field, wrong type, or a number without a source."""


class OverflowModeError(NpusimError, ValueError):
    """A floating-point overflow mode that is unknown, or that the chip does not support (Ascend 910 has only
    "saturation"); the message names the chip and the modes it supports."""
