"""Errors raised while a C++ extension op built against npusim's ``ms_extension.h`` runs (npusim.extension).

MindSpore reports these through ``MS_LOG(EXCEPTION)``, which reaches Python as a RuntimeError; each class below
also inherits the builtin MindSpore raises, so user code catching the builtin keeps working.
"""
from npusim.errors.base import NpusimError, OpTypeError, OpValueError


class ExtensionRuntimeError(NpusimError, RuntimeError):
    """A C++ extension op failed: ``MS_LOG(EXCEPTION)`` in user code, a ``PyboostRunner::Call<N>`` function that
    returned another number of outputs, ``CustomLaunchAclnn`` with more than 12 arguments ..."""


class ExtensionGradientError(ExtensionRuntimeError):
    """A ``Function<T>`` broke a gradient rule: ``Backward`` returned the wrong number of gradients or a gradient
    for a non-tensor input, a leaf tensor that needs grad was modified in place (``MarkDirty``) ..."""


class ExtensionTypeError(OpTypeError):
    """A value that cannot cross between C++ and Python (a dtype npusim's tensors cannot hold, such as bfloat16;
    ``MS_EXCEPTION(TypeError)`` in user code)."""


class ExtensionValueError(OpValueError):
    """``MS_EXCEPTION(ValueError)`` in user code, or a bad value given to an ``ms::Tensor`` method."""


__all__ = ["ExtensionRuntimeError", "ExtensionGradientError", "ExtensionTypeError", "ExtensionValueError"]
