"""Turning what the worker reports (or how it died) into npusim's typed AICPU errors."""
from __future__ import annotations

import signal
import struct
from typing import Sequence

from npusim import errors

#: worker reply kinds (REP_STALE: a library the worker loaded was replaced on disk; the call goes to a new worker)
REP_DONE, REP_LOAD_ERROR, REP_NO_ENTRY, REP_PROTOCOL, REP_LISTED, REP_MAPPED, REP_STALE = 0, 1, 2, 3, 4, 5, 6
#: runtime statuses (NpusimAicpuRuntimeStatus in call_abi.h)
RT_OP_NOT_FOUND = 2
RT_OUTPUT_OVERRUN = 8
#: the worker's GuardBreach record: u32 output_index, u32 reached_end, u64 overrun_bytes, u64 guard_bytes
_BREACH = struct.Struct("<IIQQ")
_RUNTIME_STATUS_NAMES = {1: "bad request", 3: "output overflow", 4: "output shape unset", 5: "C++ exception",
                         6: "ABI mismatch", 7: "kernel creation failed", 8: "output overrun"}
_STATUS_ERRORS = {
    1: ("KERNEL_STATUS_PARAM_INVALID", errors.AicpuParamInvalidError),
    2: ("KERNEL_STATUS_INNER_ERROR", errors.AicpuInnerError),
    3: ("KERNEL_STATUS_TIMEOUT", errors.AicpuKernelTimeoutStatusError),
    4: ("KERNEL_STATUS_PROTOBUF_ERROR", errors.AicpuStatusError),
    5: ("KERNEL_STATUS_SHARDER_ERROR", errors.AicpuStatusError),
    201: ("KERNEL_STATUS_END_OF_SEQUENCE", errors.AicpuEndOfSequenceError),
}
#: how many of the kernel's log lines an error message shows (all of them stay on the exception)
SHOWN_LOG_LINES = 20


def with_log(message: str, log_lines: Sequence[str]) -> str:
    """``message`` followed by the kernel's last log lines."""
    if not log_lines:
        return message
    return message + "\nkernel log:\n  " + "\n  ".join(log_lines[-SHOWN_LOG_LINES:])


def signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def crash_error(return_code: int, doing: str, op_type: str, library: str,
                log_lines: tuple) -> errors.AicpuKernelCrashError:
    """The worker died with ``return_code`` (negative: killed by that signal) while ``doing``."""
    signal_text, exit_status = None, None
    if return_code < 0:
        signal_text = signal_name(-return_code)
        how = f"killed by signal {signal_text} ({-return_code})"
    else:
        exit_status = return_code
        how = f"exited with status {return_code}"
    what = f"AICPU kernel '{op_type}'" if op_type else "Loading the kernel library"
    return errors.AicpuKernelCrashError(with_log(
        f"{what} (library {library}) crashed the simulated AI CPU while {doing}: the worker was {how}; the next "
        f"call starts a new worker", log_lines), op_type=op_type, library=library, log_lines=log_lines,
        signal_name=signal_text, exit_status=exit_status)


def timeout_error(timeout_s: float, op_type: str, library: str, log_lines: tuple) -> errors.AicpuTimeoutError:
    return errors.AicpuTimeoutError(with_log(
        f"AICPU kernel '{op_type}' (library {library}) did not finish within {timeout_s:g} s; the simulated AI CPU "
        f"was killed and restarts on the next call", log_lines), op_type=op_type, library=library,
        log_lines=log_lines)


def reply_error(kind: int, text: str, op_type: str, library: str) -> errors.NpusimError:
    """A non-DONE reply: the library could not be loaded or lacks the runtime's entry, or a protocol fault."""
    if kind in (REP_LOAD_ERROR, REP_NO_ENTRY):
        return errors.AicpuLibraryLoadError(
            f"AICPU op '{op_type}': cannot use kernel library {library}: {text}", library=library)
    return errors.AicpuWorkerError(f"AICPU worker protocol error for op '{op_type}' ({library}): {text}")


def runtime_error(runtime_status: int, message: str, op_type: str, library: str,
                  log_lines: tuple) -> errors.NpusimError:
    """The runtime rejected the call (op not registered, output overflow, exception ...)."""
    if runtime_status == RT_OP_NOT_FOUND:
        registered = tuple(t for t in message.split(", ") if t and t != "(none)")
        return errors.AicpuOpNotFoundError(
            f"AICPU op '{op_type}' is not registered in kernel library {library}; it registers: "
            f"{', '.join(registered) or 'nothing'}", op_type=op_type, library=library, registered=registered)
    what = _RUNTIME_STATUS_NAMES.get(runtime_status, f"runtime status {runtime_status}")
    return errors.AicpuRuntimeError(with_log(
        f"AICPU kernel '{op_type}' (library {library}) failed ({what}): {message}", log_lines),
        op_type=op_type, library=library, log_lines=log_lines)


def status_error(status: int, op_type: str, library: str, log_lines: tuple) -> errors.AicpuStatusError:
    """Compute returned a non-zero status: the typed error of that KERNEL_STATUS_ code."""
    name, cls = _STATUS_ERRORS.get(status, (f"status {status}", errors.AicpuStatusError))
    return cls(with_log(f"AICPU kernel '{op_type}' (library {library}) returned {name} ({status})", log_lines),
               op_type=op_type, library=library, log_lines=log_lines, status=status, status_name=name)


def overrun_error(result: bytes, output_sizes: Sequence[int], op_type: str, library: str,
                  log_lines: tuple) -> errors.NpusimError:
    """The kernel wrote into the guard zones after outputs: ``result`` holds the worker's GuardBreach records,
    ``output_sizes`` the outputs' buffer sizes in bytes."""
    breaches = [_BREACH.unpack_from(result, pos) for pos in range(0, len(result) - _BREACH.size + 1, _BREACH.size)]
    if not breaches:
        return errors.AicpuWorkerError(f"AICPU worker protocol error for op '{op_type}' ({library}): an "
                                       f"output-overrun reply without guard records")
    parts = []
    for index, reached_end, overrun, _ in breaches:
        extent = f"at least {overrun}" if reached_end else f"{overrun}"
        parts.append(f"output {index} (buffer of {output_sizes[index]} bytes): wrote {extent} bytes past its end")
    index, reached_end, overrun, guard = breaches[0]
    return errors.AicpuOutputOverrunError(with_log(
        f"AICPU kernel '{op_type}' (library {library}) wrote past the end of its outputs; " + "; ".join(parts) +
        ". The call's outputs are discarded (a write past an output would change the next one)", log_lines),
        op_type=op_type, library=library, log_lines=log_lines, output_index=index, overrun_bytes=overrun,
        guard_bytes=guard, reached_guard_end=bool(reached_end),
        overruns=tuple((i, o, bool(r)) for i, r, o, _ in breaches))
