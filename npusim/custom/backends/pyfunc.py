"""func_type="pyfunc": a Python function on numpy arrays, run on the CPU."""
from __future__ import annotations

import numpy as np

from npusim.custom.backends.base import Backend
from npusim.errors import OpTypeError, OpValueError, PyfuncOutputError

#: numpy dtype kinds an output may convert from: bool, ints, floats, complex
NUMERIC_KINDS = "biufc"


class PyfuncBackend(Backend):
    """Calls ``func(*input_arrays, *attribute_values)`` and converts what it returns to the declared outputs."""

    def __init__(self, desc, runtime=None):
        super().__init__(desc, runtime)
        if not callable(desc.func):
            raise OpTypeError(f"For 'Custom' with func_type 'pyfunc', 'func' must be a function, "
                              f"but got {type(desc.func).__name__}")

    def launch(self, inputs, attrs, out_shapes, out_dtypes, runtime=None):
        result = self.desc.func(*inputs, *attrs.values)
        n = len(out_dtypes)
        if n == 0:
            return []
        values = result if n > 1 else (result,)
        if n > 1 and (not isinstance(result, (tuple, list)) or len(result) != n):
            raise OpValueError(f"Custom op '{self.desc.name}' (pyfunc) declares {n} outputs but the function "
                               f"returned {type(result).__name__}")
        outs = []
        for i, (value, shape, dtype) in enumerate(zip(values, out_shapes, out_dtypes)):
            if value is None:
                raise OpValueError(f"Custom op '{self.desc.name}' (pyfunc): output {i} is None")
            try:
                arr = np.asarray(value)
            except (TypeError, ValueError):  # ragged nesting and the like
                arr = np.empty((), object)
            if arr.dtype != dtype:
                if arr.dtype.kind not in NUMERIC_KINDS:
                    raise PyfuncOutputError(
                        f"Custom op '{self.desc.name}' (pyfunc): output {i} must be numeric data (a numpy array, "
                        f"a number or a list of numbers) convertible to {dtype}, but the function returned "
                        f"{_describe(value)}")
                arr = arr.astype(dtype)
            if arr.shape != shape:
                if arr.size != int(np.prod(shape)):
                    raise OpValueError(f"Custom op '{self.desc.name}' (pyfunc): output {i} has shape "
                                       f"{list(arr.shape)} but out_shape declares {list(shape)}")
                arr = arr.reshape(shape)
            outs.append(arr)
        return outs


def _describe(value) -> str:
    """A short description of a returned value for error messages: its type and a clipped repr."""
    text = repr(value)
    return f"{type(value).__name__} {text[:60] + '...' if len(text) > 60 else text}"
