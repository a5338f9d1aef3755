"""The primitive base of npusim's operators (built-in ops, ``ops.Custom``; user primitives derive from it in the
Custom layer, :mod:`npusim.custom.user_primitive`, which is what ``mindspore.ops.Primitive`` is).

A built-in operator is a :class:`NumpyPrimitive`: ``forward`` computes on numpy arrays, ``backward`` maps the output
gradient (an array) to one array (or None) per call argument.  ``__call__`` converts arguments, runs forward, and
records a tape node when a gradient is being taken.
"""
from __future__ import annotations

import numpy as np

from npusim.errors import UnsupportedError
from npusim.frontend import autodiff
from npusim.frontend.tensor import Tensor


class Primitive:
    """Base of every operator object (``ops.Add()``, ``ops.Custom(...)``, user primitives)."""

    def __init__(self, name: str | None = None):
        self.name = name or type(self).__name__
        self.attrs: dict = {}

    #: instance names ``add_prim_attr`` never overwrites (they identify the primitive)
    _UNMIRRORED = frozenset({"name", "attrs"})

    def add_prim_attr(self, name, value):
        """Set attribute ``name``: in ``attrs`` and, as MindSpore does, as an instance attribute (``op.axis``)
        unless the class defines that name or it is one of the primitive's own fields."""
        self.attrs[name] = value
        if self._mirrors(name):
            self.__dict__[name] = value
        return self

    def _mirrors(self, name) -> bool:
        return isinstance(name, str) and name not in self._UNMIRRORED and not hasattr(type(self), name)

    def init_prim_io_names(self, inputs, outputs):
        self.attrs["input_names"], self.attrs["output_names"] = list(inputs), list(outputs)

    def set_device(self, device_target):
        self.attrs["primitive_target"] = device_target
        return self

    def __call__(self, *args):
        raise UnsupportedError(f"Primitive '{self.name}' has no implementation to run (subclass "
                               f"mindspore.ops.Primitive and register one with op_info_register)")

    def __repr__(self):
        return f"Prim[{self.name}]"


def sum_to_shape(grad: np.ndarray, shape: tuple) -> np.ndarray:
    """Undo broadcasting: sum ``grad`` over the axes where ``shape`` was broadcast."""
    if grad.shape == tuple(shape):
        return grad
    lead = grad.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(i + lead for i, n in enumerate(shape) if n == 1 and grad.shape[i + lead] != 1)
    out = grad.sum(axis=axes, keepdims=True) if axes else grad
    return out.reshape(shape)


class NumpyPrimitive(Primitive):
    """An operator defined by a numpy forward and a numpy backward rule."""

    def forward(self, *args):
        raise NotImplementedError(f"{self.name} needs forward()")

    def backward(self, args: tuple, arrays: tuple, out: np.ndarray, dout: np.ndarray) -> tuple:
        """Gradients (arrays or None), one per call argument; ``arrays`` are the converted arguments."""
        raise NotImplementedError(f"{self.name} has no gradient rule")

    def convert(self, args: tuple) -> tuple:
        """Arguments → what forward takes (default: tensors to arrays, others unchanged)."""
        return tuple(a._data if isinstance(a, Tensor) else a for a in args)

    def __call__(self, *args):
        arrays = self.convert(args)
        out = Tensor._wrap(np.asarray(self.forward(*arrays)))
        if autodiff.recording():
            def rule(douts, args=args, arrays=arrays, out_data=out._data):
                grads = self.backward(args, arrays, out_data, douts[0]._data)
                return [None if g is None else Tensor._wrap(np.asarray(g)) for g in grads]
            autodiff.record(self.name, args, [out], rule)
        return out
