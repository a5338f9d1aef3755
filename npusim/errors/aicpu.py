"""Errors of AICPU kernels: building, finding libraries, and running kernels on the simulated AI CPU.

Kernel failures derive from :class:`AicpuKernelError` (a ``RuntimeError``, as MindSpore raises for a failed
launch) and carry the op type, the library and the lines the kernel logged during the call.
"""
from __future__ import annotations

from npusim.errors.base import KernelBuildError, KernelRuntimeError, OpTypeError

__all__ = [
    "AicpuBuildError", "AicpuLibraryError", "AicpuLibraryNotFoundError", "AicpuLibraryLoadError",
    "AicpuOpNotFoundError", "AicpuAttrError", "AicpuKernelError", "AicpuKernelCrashError", "AicpuTimeoutError",
    "AicpuStatusError", "AicpuParamInvalidError", "AicpuInnerError", "AicpuKernelTimeoutStatusError",
    "AicpuEndOfSequenceError", "AicpuRuntimeError", "AicpuOutputOverrunError", "AicpuWorkerError",
]


class AicpuBuildError(KernelBuildError):
    """Compiling the AICPU runtime, the worker or a kernel library failed (compiler output in the message)."""


class AicpuLibraryError(KernelBuildError):
    """A kernel library could not be found, loaded, or does not provide the op."""


class AicpuLibraryNotFoundError(AicpuLibraryError):
    """No ``libX.so`` for ``cust_aicpu`` X in any searched directory; ``searched`` lists them in order."""

    def __init__(self, message: str, library_name: str = "", searched: tuple = ()):
        super().__init__(message)
        self.library_name = library_name
        self.searched = tuple(searched)


class AicpuLibraryLoadError(AicpuLibraryError):
    """dlopen failed, or the library lacks npusim's RunCpuKernel entry (not linked with the runtime)."""

    def __init__(self, message: str, library: str = ""):
        super().__init__(message)
        self.library = library


class AicpuOpNotFoundError(AicpuLibraryError):
    """The library registers no kernel for the op type; ``registered`` lists the op types it does register."""

    def __init__(self, message: str, op_type: str = "", library: str = "", registered: tuple = ()):
        super().__init__(message)
        self.op_type = op_type
        self.library = library
        self.registered = tuple(registered)


class AicpuAttrError(OpTypeError):
    """An attribute value does not fit the type its reg info declares."""


class AicpuKernelError(KernelRuntimeError):
    """A kernel failed on the simulated AI CPU.

    op_type / library: what ran.  log_lines: what it logged during the call.  signal_name / exit_status: how
    the worker process ended when the kernel crashed or exited (None otherwise).
    """

    def __init__(self, message: str, *, op_type: str = "", library: str = "", log_lines: tuple = (),
                 signal_name: str | None = None, exit_status: int | None = None):
        super().__init__(message)
        self.op_type = op_type
        self.library = library
        self.log_lines = tuple(log_lines)
        self.signal_name = signal_name
        self.exit_status = exit_status


class AicpuKernelCrashError(AicpuKernelError):
    """The kernel killed the worker (segfault, abort, exit ...); the next call starts a fresh worker."""


class AicpuTimeoutError(AicpuKernelError):
    """The kernel ran longer than the call timeout; the worker was killed and is restarted on the next call."""


class AicpuStatusError(AicpuKernelError):
    """Compute returned a non-zero status; ``status`` is the code and ``status_name`` its KERNEL_STATUS_ name."""

    def __init__(self, message: str, *, status: int = 0, status_name: str = "", **kwargs):
        super().__init__(message, **kwargs)
        self.status = status
        self.status_name = status_name


class AicpuParamInvalidError(AicpuStatusError):
    """KERNEL_STATUS_PARAM_INVALID (1)."""


class AicpuInnerError(AicpuStatusError):
    """KERNEL_STATUS_INNER_ERROR (2)."""


class AicpuKernelTimeoutStatusError(AicpuStatusError):
    """KERNEL_STATUS_TIMEOUT (3), reported by the kernel itself."""


class AicpuEndOfSequenceError(AicpuStatusError):
    """KERNEL_STATUS_END_OF_SEQUENCE (201)."""


class AicpuRuntimeError(AicpuKernelError):
    """The runtime rejected the call's outcome: an output shape too large for its buffer or left unknown, a C++
    exception escaping Compute, or a library built for another runtime ABI."""


class AicpuOutputOverrunError(AicpuRuntimeError):
    """The kernel wrote past the end of an output's buffer (into the guard zone npusim keeps after every output).

    output_index: the first output written past; overrun_bytes: how far past its end the kernel wrote (at least:
    ``reached_guard_end`` says the write reached the end of the ``guard_bytes``-long zone and may go further);
    overruns: one ``(output_index, overrun_bytes, reached_guard_end)`` per output written past.  The call's
    outputs are discarded; the worker stays usable.
    """

    def __init__(self, message: str, *, output_index: int = 0, overrun_bytes: int = 0, guard_bytes: int = 0,
                 reached_guard_end: bool = False, overruns: tuple = (), **kwargs):
        super().__init__(message, **kwargs)
        self.output_index = output_index
        self.overrun_bytes = overrun_bytes
        self.guard_bytes = guard_bytes
        self.reached_guard_end = reached_guard_end
        self.overruns = tuple(overruns)


class AicpuWorkerError(KernelRuntimeError):
    """The worker process could not be started or broke the protocol."""
