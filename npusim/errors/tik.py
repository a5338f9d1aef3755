"""Errors of TIK kernels (``from tbe import tik``), with TIK's own texts.

TIK reports a bad instruction by printing the source line and raising SystemExit (err_msg_level=0) or RuntimeError
(err_msg_level=1); npusim raises a typed RuntimeError subclass carrying the same text.  Checks on immediates fire
when the instruction is written (build time, :class:`TikError` and subclasses); checks on Scalar-dependent values
fire when tikdb / a launch runs the kernel (:class:`TikRuntimeError` and subclasses).
"""
import os
import traceback

from npusim.errors.base import KernelBuildError, KernelRuntimeError, UnsupportedError

_OWN_DIRS = tuple(os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), d)
                  + os.sep for d in ("npusim", "te_compat"))


def kernel_source_line() -> str:
    """Where the kernel author's code made the failing call ("file:line: source"), as TIK prints it; "" if no
    frame outside npusim is on the stack."""
    for frame in reversed(traceback.extract_stack()):
        if not os.path.abspath(frame.filename).startswith(_OWN_DIRS) and "contextlib" not in frame.filename:
            return f"{frame.filename}:{frame.lineno}: {(frame.line or '').strip()}"
    return ""


class TikError(KernelBuildError):
    """A TIK kernel is wrong at build time (an instruction's immediate operands, declarations, control flow).
    The message ends with the kernel's source line, as TIK prints it (``source_line`` holds it alone)."""

    def __init__(self, message: str = "", *args, **kwargs):
        self.source_line = kernel_source_line()
        text = f"{message}\n  [TIK kernel] {self.source_line}" if self.source_line else message
        super().__init__(text, *args, **kwargs)


class TikRepeatError(TikError):
    """repeat_times outside [1, max] ("repeat_times should be in the range of [1, 255], input repeat_times: N")."""


class TikMaskError(TikError):
    """A vector mask outside the lanes of its operands."""


class TikOperandRangeError(TikError):
    """A stride, burst, burst count, sid ... outside the range its instruction field encodes."""


class TikTensorOverflowError(TikError):
    """An instruction reaches past its operand ("dst tensor overflow, instruction need N but only M")."""


class TikAlignmentError(TikError):
    """A local operand not on a 32-byte boundary ("Address align error, X is not 32 Byte align")."""


class TikOverlapError(TikError):
    """dst and src of a vector instruction overlap in a way the hardware does not allow."""


class TikDtypeError(TikError):
    """Operand dtypes that do not match, or a dtype the instruction does not support on the chip."""


class TikScopeError(TikError):
    """An operand in the wrong scope (vector instructions need UB ...) or an unknown scope."""


class TikMemoryError(TikError):
    """The tensors alive at one point need more of a scope than the chip has."""


class TikSyntaxError(TikError):
    """Misuse of the TIK language: else_scope not after if_scope, an Expr used as a Python bool, a block_num loop
    that is not the outermost statement, a BuildCCE argument that is not a GM tensor or InputScalar ..."""


class TikDebugError(TikError):
    """``tikdb.start_debug`` was given a feed_dict that does not match the BuildCCE inputs."""


class TikInstructionUnsupportedError(UnsupportedError, TikError):
    """A TIK API npusim's instruction set cannot run yet (named in the message)."""


class TikRuntimeError(KernelRuntimeError):
    """A TIK kernel went wrong while running (Scalar-dependent checks, in tikdb or a launch)."""


class TikAccessViolationError(TikRuntimeError):
    """An access outside its operand's buffer ("Memory out of range ... AccessViolation: ...")."""


class TikUninitializedScalarError(TikRuntimeError):
    """A Scalar read before any write ("found uninitialized Scalar")."""


__all__ = ["TikAccessViolationError", "TikAlignmentError", "TikDebugError", "TikDtypeError", "TikError",
           "TikInstructionUnsupportedError", "TikMaskError", "TikMemoryError", "TikOperandRangeError",
           "TikOverlapError", "TikRepeatError", "TikRuntimeError", "TikScopeError", "TikSyntaxError",
           "TikTensorOverflowError", "TikUninitializedScalarError"]
