"""Errors of the real-MindSpore bridge (:mod:`npusim.bridge`)."""
from npusim.errors.base import KernelRuntimeError, NpusimError, OpTypeError, UnsupportedError


class BridgeError(NpusimError):
    """Root of the bridge's errors."""


class MindSporeNotFoundError(BridgeError, ImportError):
    """``--mindspore real`` / ``import npusim.bridge`` without an installed MindSpore (or one that fails to import)."""


class BridgeConflictError(BridgeError, RuntimeError):
    """The bridge cannot take over: npusim's own ``mindspore`` front end is already imported in this process."""


class BridgeUnsupportedError(BridgeError, UnsupportedError):
    """A Custom-op feature the bridge cannot carry through real MindSpore (data-dependent output shapes,
    bfloat16 ...); the message names the op and what to do instead."""


class BridgeAttributeError(BridgeError, OpTypeError):
    """A Custom op's call argument cannot travel through MindSpore's pyfunc kernel (a str / tuple attribute inside
    a compiled graph that the bridge could not intern, a value of an unsupported kind)."""


class BridgeOutputError(BridgeError, KernelRuntimeError):
    """A simulated kernel's outputs do not match the out_shape / out_dtype the MindSpore graph was built with."""


__all__ = ["BridgeAttributeError", "BridgeConflictError", "BridgeError", "BridgeOutputError",
           "BridgeUnsupportedError", "MindSporeNotFoundError"]
