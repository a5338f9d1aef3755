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


class MissingAttributeError(OpValueError):
    """A Custom op's reg-info attribute has no value: no call argument, no ``add_prim_attr``, no reg-info default."""


class AttributeTypeError(OpTypeError):
    """An attribute value does not convert to its declared type (an ``int`` attribute given 2.5, ...)."""


class OutputSpecError(OpTypeError):
    """``out_shape`` / ``out_dtype`` (or a callable giving them) produced something that is not a shape or dtype."""


class OutputSizeError(OpValueError):
    """An output's declared shape is too big to exist (its byte size overflows a 64-bit size)."""


class PyfuncOutputError(OpTypeError):
    """A pyfunc op's function returned something that is not numeric array data (a str, a dict, ...)."""


class TooManyInputsError(OpValueError):
    """A Custom op was called with more tensor inputs than its registration info declares."""


class BpropShapeError(GradientError, ValueError):
    """A user bprop returned a gradient whose shape differs from its input's (MindSpore's check_bprop)."""


class BpropDtypeError(GradientError, TypeError):
    """A user bprop returned a gradient whose dtype differs from its input's (check_bprop=True)."""


class BpropCountError(GradientError, ValueError):
    """A user bprop returned fewer gradients than the op has inputs (MindSpore's check_bprop)."""


class DynamicShapeDataError(NpusimError, RuntimeError):
    """A ``Tensor(shape=[4, None], dtype=...)`` placeholder was used where data is needed."""


class InputSignatureError(OpValueError):
    """A call's inputs do not fit the signature given by ``Cell.set_inputs`` or ``jit(input_signature=...)``."""
