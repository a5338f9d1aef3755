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
