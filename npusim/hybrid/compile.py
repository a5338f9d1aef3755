"""Building lowered hybrid kernels with TVM's LLVM backend, running them on numpy arrays, and caching both.

Arrays cross into TVM without copies: the compiled function takes C-contiguous numpy arrays directly as
arguments (tvm_ffi converts them through DLPack, ~0.2 µs each — cheaper than wrapping them first with
``tvm.runtime.tensor`` (a copy) or ``from_dlpack``).  The TIR buffers assume only element alignment
(``values.declare_buffer``), so numpy arrays at any address are accepted.
Output arrays are fresh ``np.zeros`` per launch: hybrid code may read an output before writing it.
"""
from __future__ import annotations

import threading
from typing import Callable, Sequence

import numpy as np
import tvm

from npusim.errors import KernelBuildError, KernelRuntimeError
from npusim.hybrid.attrs import attrs_key
from npusim.hybrid.checks import check_kernel
from npusim.hybrid.kernel_ir import LoweredKernel, lower_kernel
from npusim.hybrid.source import KernelSource
from npusim.util.cache import BoundedCache

TARGET = "llvm"
#: the runtime resource holding a store's KernelCache, and the kernels each of its caches keeps
RESOURCE = "hybrid.kernels"
KERNEL_ENTRIES = 256


class CompiledKernel:
    """A built kernel for one signature; :meth:`run` takes numpy inputs and returns the returned arrays."""

    def __init__(self, name: str, lowered: LoweredKernel, function: Callable):
        self.name = name
        self.lowered = lowered
        self._function = function
        self._out_specs = [(shape, np.dtype(dtype)) for shape, dtype in lowered.out_specs]
        self._copy_inputs = lowered.written_inputs
        self._returns = lowered.returns
        self._float_attrs = lowered.float_attrs
        self._default_attrs = lowered.default_attrs

    def run(self, inputs: Sequence[np.ndarray], attr_values: Sequence = ()) -> list:
        """Launch on ``inputs`` (numpy arrays of the compiled shapes/dtypes); returns new arrays."""
        copies = self._copy_inputs
        arrays = [np.array(a, order="C", copy=True) if i in copies else np.ascontiguousarray(a)
                  for i, a in enumerate(inputs)]
        outputs = [np.zeros(shape, dtype) for shape, dtype in self._out_specs]
        if self._float_attrs:
            values = tuple(attr_values) + self._default_attrs
            outputs_and_floats = outputs + [float(values[p]) for p in self._float_attrs]
        else:
            outputs_and_floats = outputs
        try:
            self._function(*arrays, *outputs_and_floats)
        except Exception as exc:  # TVM raises its own error classes; keep the message, name the op
            raise KernelRuntimeError(f"hybrid kernel '{self.name}' failed while running: {exc}") from exc
        return [outputs[i] if role == "output" else _returned_input(arrays[i], i in copies)
                for role, i in self._returns]


def _returned_input(array: np.ndarray, already_copied: bool) -> np.ndarray:
    """A returned input never aliases the caller's array."""
    return array if already_copied else array.copy()


def build(name: str, lowered: LoweredKernel) -> CompiledKernel:
    """Compile ``lowered`` with LLVM.  Raises KernelBuildError with TVM's message on failure."""
    try:
        executable = tvm.compile(lowered.prim_func, target=TARGET)
        function = executable[lowered.symbol]
    except Exception as exc:  # TVM's errors are TVMError/RuntimeError/ValueError depending on the pass
        raise KernelBuildError(f"compiling hybrid kernel '{name}' with TVM failed: {exc}") from exc
    return CompiledKernel(name, lowered, function)


class KernelCache:
    """Lowered and compiled kernels per (source text, input shapes, input dtypes, attribute key), in two bounded
    caches of ``entries`` kernels each.

    A runtime store holds one (``runtime.resource(RESOURCE, KernelCache)``); ``get_*`` return the same object for
    the same key while it is cached.
    """

    def __init__(self, entries: int = KERNEL_ENTRIES):
        self._lowered = BoundedCache("hybrid.lowered", entries)
        self._compiled = BoundedCache("hybrid.compiled", entries)
        self._lock = threading.Lock()

    @staticmethod
    def key(source: KernelSource, in_shapes: Sequence, in_dtypes: Sequence, attr_values: Sequence) -> tuple:
        return (source.text, tuple(tuple(int(d) for d in s) for s in in_shapes), tuple(str(d) for d in in_dtypes),
                attrs_key(attr_values), attrs_key(source.defaults))

    def get_lowered(self, source: KernelSource, in_shapes, in_dtypes, attr_values=()) -> LoweredKernel:
        key = self.key(source, in_shapes, in_dtypes, attr_values)
        lowered = self._lowered.get(key)
        if lowered is None:
            check_kernel(source)
            lowered = self._lowered.put(key, lower_kernel(source, in_shapes, in_dtypes, attr_values))
        return lowered

    def get_compiled(self, source: KernelSource, in_shapes, in_dtypes, attr_values=()) -> CompiledKernel:
        key = self.key(source, in_shapes, in_dtypes, attr_values)
        kernel = self._compiled.get(key)
        if kernel is None:
            with self._lock:
                kernel = self._compiled.get(key)
                if kernel is None:
                    lowered = self.get_lowered(source, in_shapes, in_dtypes, attr_values)
                    kernel = self._compiled.put(key, build(source.name, lowered))
        return kernel

    def __len__(self) -> int:
        return len(self._compiled)

    def clear(self) -> None:
        with self._lock:
            self._lowered.clear()
            self._compiled.clear()

    def caches(self) -> tuple:
        return (self._lowered, self._compiled)
