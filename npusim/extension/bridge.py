"""The Python side of npusim's C++ extension headers (``ms_extension.h`` and friends).

A compiled extension imports this module once (C++ keeps every attribute it needs) and calls back into it for:

* tensors: ``Tensor`` (the class C++ tensors cross to and from; ``Tensor._wrap`` wraps a numpy array without
  copying);
* gradients: ``recording``, ``grad_flags``, ``needs_grad``, ``is_leaf``, ``suspended``, ``record_function``
  (:mod:`npusim.extension.autograd_glue`);
* aclnn launches (the C++ side calls ``npusim.aclnn.call`` itself): ``op_runtime()`` is the API edge where a C++
  op call's runtime is resolved (once per call, at its first launch);
* host work of ``ms::Tensor`` methods: ``host_op`` (:mod:`npusim.extension.host_ops`);
* the error classes C++ raises.
"""
from __future__ import annotations

from npusim.errors import (  # noqa: F401  (looked up by the C++ side)
    ExtensionGradientError, ExtensionRuntimeError, ExtensionTypeError, ExtensionUnsupportedError,
    ExtensionValueError,
)
from npusim.extension.autograd_glue import (  # noqa: F401
    grad_flags, is_leaf, needs_grad, record_function, recording, suspended,
)
from npusim.extension.host_ops import host_op  # noqa: F401
from npusim.frontend.tensor import Tensor  # noqa: F401
from npusim.sim.runtime import current_runtime


def op_runtime():
    """The runtime a C++ op call's aclnn launches run on (the current one: a C++ op call is an API edge)."""
    return current_runtime()
