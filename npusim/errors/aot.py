"""Errors of the aot (C/C++ kernel library) backend.  A kernel's non-zero return is AotKernelError (frontend.py)."""
from npusim.errors.base import KernelRuntimeError, NpusimError


class AotFileNotFoundError(NpusimError, FileNotFoundError):
    """The kernel library or source named in ``func`` does not exist."""


class AotLoadError(NpusimError, RuntimeError):
    """The kernel library exists but cannot be loaded (``dlopen`` failed)."""


class AotSymbolError(AotLoadError):
    """The kernel library has no function of the name given after ':' in ``func``."""


class AotKernelCrash(KernelRuntimeError):
    """The kernel crashed (segmentation fault, bus error, abort ...) and npusim recovered; ``signal_number`` says
    which signal."""

    def __init__(self, message: str, signal_number: int = 0):
        super().__init__(message)
        self.signal_number = signal_number


class AotOutputOverrunError(KernelRuntimeError):
    """The kernel wrote outside one of its outputs (caught in the guard bytes around it).  ``output_index``: which
    output; ``bytes_before`` / ``bytes_after``: how far before its start / past its end the writes reached."""

    def __init__(self, message: str, output_index: int = -1, bytes_before: int = 0, bytes_after: int = 0):
        super().__init__(message)
        self.output_index = output_index
        self.bytes_before = bytes_before
        self.bytes_after = bytes_after


class AotCudaUnavailableError(AotLoadError):
    """The kernel library is linked against the CUDA runtime and this machine has no usable GPU."""
