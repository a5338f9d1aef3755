"""``mindspore.Parameter`` and ``ParameterTuple``."""
from __future__ import annotations

import numpy as np

from npusim.frontend.tensor import Tensor


class Parameter(Tensor):
    """A trainable tensor: ``Parameter(default_input, name=None, requires_grad=True, layerwise_parallel=False)``."""

    def __init__(self, default_input, name=None, requires_grad=True, layerwise_parallel=False,
                 parallel_optimizer=True):
        data = default_input.asnumpy() if isinstance(default_input, Tensor) else default_input
        super().__init__(data)
        self.name = name or "Parameter"
        self.requires_grad = bool(requires_grad)
        self._named_by_cell = name is None

    def set_data(self, data):
        arr = data.asnumpy() if isinstance(data, Tensor) else np.asarray(data)
        self._data = arr.astype(self._data.dtype, copy=True)
        return self

    def assign_value(self, value):
        return self.set_data(value)

    @property
    def data(self):
        return self

    def clone(self, init="same"):
        return Parameter(self._data.copy(), name=self.name, requires_grad=self.requires_grad)

    def __repr__(self):
        return f"Parameter (name={self.name}, shape={list(self.shape)}, dtype={self.dtype}, " \
               f"requires_grad={self.requires_grad})"


class ParameterTuple(tuple):
    """A tuple of Parameters (``ParameterTuple(net.trainable_params())``)."""

    def __new__(cls, iterable):
        items = tuple(iterable)
        for item in items:
            if not isinstance(item, Parameter):
                raise TypeError(f"ParameterTuple: every element must be a Parameter, got {type(item).__name__}")
        return super().__new__(cls, items)

    def clone(self, prefix, init="same"):
        return ParameterTuple(p.clone(init) for p in self)
