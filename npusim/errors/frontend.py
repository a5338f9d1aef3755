"""Errors of the MindSpore-compatible front end and its CPU backends."""
from npusim.errors.base import KernelRuntimeError, NpusimError, OpTypeError, OpValueError


class AotKernelError(KernelRuntimeError):
    """An aot kernel returned a non-zero status.  ``code`` holds the value it returned."""

    def __init__(self, message, code=None):
        super().__init__(message)
        self.code = code


class KernelSelectionError(OpTypeError):
    """The call's input dtypes/formats match no ``dtype_format`` row of the op's registration info."""


class GradientError(NpusimError, RuntimeError):
    """Differentiation is impossible, e.g. a Custom op without bprop lies on the gradient path."""


class HybridSyntaxError(OpTypeError):
    """A hybrid (``@kernel``) function uses a construct the DSL forbids (MindSpore: TypeError)."""


class HybridNameError(OpValueError):
    """A hybrid function calls something that is neither a DSL intrinsic nor defined (MindSpore: ValueError)."""
