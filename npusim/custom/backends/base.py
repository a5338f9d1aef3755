"""The contract every ``ops.Custom`` backend fulfils.

One backend class per func_type lives in its own module of this package and is registered in
:data:`npusim.custom.backends.BACKENDS`.  ``ops.Custom`` looks the class up once, builds one backend object per
Custom op, and after that only calls the methods below; it never compares func_type strings again.

Data crossing the interface is plain: numpy arrays, tuples of ints, numpy dtype names ("float32", "bool" ...),
and a :class:`CallAttrs` mapping of attribute name → Python value in reg-info order.

State is explicit: ``ops.Custom`` resolves the runtime (:class:`npusim.sim.runtime.Runtime`: target, device,
caches) at its API edge and hands it down — to the constructor (``runtime``: build-time caches such as loaded
libraries) and, for backends whose ``needs_runtime`` is true, to every ``launch`` (the target may differ between
calls).  A backend never looks the current runtime up itself; called directly (tests), a missing ``runtime`` is
resolved by :func:`given_runtime`, the one place this package does so.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Optional, Sequence

import numpy as np


@dataclass(frozen=True)
class OpDesc:
    """What a backend knows about its Custom op, fixed at construction.

    func: the user's ``func`` argument (callable or str).
    name: a display name for messages (function name or "file:func").
    reg_info: the selected registration dict (MindSpore ``get_op_info()`` form) or None.
    device_target: "CPU", "GPU" or "Ascend" at construction time.
    """

    func: Any
    name: str
    reg_info: Optional[dict]
    device_target: str
    func_type: str


@dataclass(frozen=True)
class CallAttrs:
    """Attribute values of one call, in reg-info order: names[i] ↔ values[i]."""

    names: tuple = ()
    values: tuple = ()

    def as_dict(self) -> dict:
        return dict(zip(self.names, self.values))


class Backend:
    """Base class; subclasses override what their func_type needs.

    Lifecycle: ``__init__(desc)`` validates the func (raise MindSpore's TypeError/ValueError there),
    then for every call: ``infer`` (only when the user gave out_shape=None) and ``launch``.
    """

    #: whether the backend can produce outputs without the user's out_shape/out_dtype
    can_infer: bool = False
    #: whether ``launch`` needs this call's runtime (it runs on the simulated device, or uses per-call resources)
    needs_runtime: bool = False

    def __init__(self, desc: OpDesc, runtime=None):
        self.desc = desc
        self.runtime = given_runtime(runtime)

    def infer(self, in_shapes: Sequence[tuple], in_dtypes: Sequence[str],
              attrs: CallAttrs) -> tuple[list[tuple], list[str]]:
        """Output shapes and dtype names for inputs of these shapes/dtypes (out_shape=None case)."""
        from npusim.errors import OpValueError
        raise OpValueError(f"Custom op '{self.desc.name}' (func_type={self.desc.func_type!r}): "
                           "'out_shape' and 'out_dtype' must be given for this func_type")

    def launch(self, inputs: list[np.ndarray], attrs: CallAttrs,
               out_shapes: list[tuple], out_dtypes: list[str], runtime=None) -> list[np.ndarray]:
        """Run the op: return one array per output, each of the given shape and dtype.  ``runtime``: this call's
        runtime (passed when ``needs_runtime``)."""
        raise NotImplementedError(f"backend {type(self).__name__} needs launch()")


def given_runtime(runtime=None):
    """``runtime``, or the current one when a direct caller (a test) passed none."""
    if runtime is not None:
        return runtime
    from npusim.sim.runtime import current_runtime
    return current_runtime()
