"""Root classes of npusim's error hierarchy."""


class NpusimError(Exception):
    """Root of every error npusim raises on purpose."""


class UnsupportedError(NpusimError, NotImplementedError):
    """A feature the user asked for that npusim does not provide (yet)."""


class OpTypeError(NpusimError, TypeError):
    """A bad argument kind given to an op (MindSpore raises TypeError here)."""


class OpValueError(NpusimError, ValueError):
    """A bad argument value given to an op (MindSpore raises ValueError here)."""


class KernelBuildError(NpusimError, RuntimeError):
    """Compiling a kernel failed (compiler output is in the message)."""


class KernelRuntimeError(NpusimError, RuntimeError):
    """A kernel failed while it ran."""
