"""Errors of building and loading C++ extensions with ``CustomOpBuilder`` (npusim.extension).

MindSpore raises builtin types here (TypeError for a bad argument kind, ValueError for a bad value, RuntimeError
when ninja is missing or the compiler fails); each class below also inherits that builtin, so user code catching
the builtin keeps working.
"""
from npusim.errors.base import KernelBuildError, OpTypeError, OpValueError, UnsupportedError


class ExtensionArgumentTypeError(OpTypeError):
    """A ``CustomOpBuilder`` argument of the wrong type (the message names the argument)."""


class ExtensionArgumentValueError(OpValueError):
    """A ``CustomOpBuilder`` argument with a value MindSpore rejects (a backend other than "CPU"/"Ascend",
    ``enable_atb`` with a non-Ascend backend ...)."""


class ExtensionUnsupportedError(UnsupportedError):
    """A CustomOpBuilder or extension-API feature npusim does not provide (ATB, ASDSIP ...): the message names
    what is missing."""


class ExtensionOpNotGeneratedError(UnsupportedError, AttributeError):
    """An op an ``op_def`` YAML declares but the extension's pybind11 module does not bind: MindSpore would generate
    it for graph mode; npusim generates nothing from the YAML (also an AttributeError, as MindSpore's lookup)."""


class NinjaNotFoundError(KernelBuildError):
    """No ``ninja`` executable: neither the ``ninja`` Python package's binary nor one on ``PATH``."""


class ExtensionBuildError(KernelBuildError):
    """Compiling or linking an extension failed: "Error building extension '<name>': <compiler output>"."""


__all__ = ["ExtensionArgumentTypeError", "ExtensionArgumentValueError", "ExtensionUnsupportedError",
           "ExtensionOpNotGeneratedError", "NinjaNotFoundError", "ExtensionBuildError"]
