"""Building lowered hybrid kernels with TVM's LLVM backend, running them on numpy arrays, and caching both.

Arrays cross into TVM without copies: the compiled function takes C-contiguous numpy arrays directly as
arguments (tvm_ffi converts them through DLPack, ~0.2 µs each — cheaper than wrapping them first with
``tvm.runtime.tensor`` (a copy) or ``from_dlpack``).  The TIR buffers assume only element alignment
(``values.declare_buffer``), so numpy arrays at any address are accepted.
Output arrays are fresh ``np.zeros`` per launch: hybrid code may read an output before writing it.
Compiled kernels are also kept on disk (:mod:`npusim.hybrid.disk_cache`), so a new process loads them.
"""
from __future__ import annotations

import threading
from typing import Callable, Sequence

import numpy as np
import tvm

from npusim.errors import KernelBuildError, KernelRuntimeError
from npusim.hybrid.attrs import attrs_key
from npusim.hybrid.checks import check_kernel
from npusim.hybrid.disk_cache import DiskCache
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


class CompiledBackward:
    """A built automatic backward (:class:`npusim.hybrid.autodiff.BackwardKernel`); :meth:`run` maps the forward
    inputs and the gradients of the returned values to the gradients of the inputs."""

    def __init__(self, name: str, backward, function: Callable):
        self.name, self.backward, self._function = name, backward, function

    def run(self, inputs: Sequence[np.ndarray], douts: Sequence, attr_values: Sequence = ()) -> list:
        """One gradient per input (zeros for integer inputs), each of its input's shape and dtype."""
        spec = self.backward
        arrays = [np.array(a, order="C", copy=True) if i in spec.written_inputs else np.ascontiguousarray(a)
                  for i, a in enumerate(inputs)]
        outputs = [np.zeros(shape, dtype) for shape, dtype in spec.out_specs]
        grad_in = {i: np.zeros(spec.in_specs[i][0], dtype) for i, dtype in spec.grad_inputs}
        grad_out = {k: np.zeros(spec.out_specs[k][0], dtype) for k, dtype in spec.grad_outputs}
        for (role, index), dout in zip(spec.returns, douts):
            target = (grad_out if role == "output" else grad_in).get(index)
            if target is not None and dout is not None:
                target += np.asarray(dout, dtype=target.dtype)
        tapes = [np.empty(elements, dtype) for elements, dtype in spec.tapes]
        values = tuple(attr_values) + spec.default_attrs
        floats = [float(values[p]) for p in spec.float_attrs]
        try:
            self._function(*arrays, *outputs, *grad_in.values(), *grad_out.values(), *tapes, *floats)
        except Exception as exc:  # TVM raises its own error classes; keep the message, name the op
            raise KernelRuntimeError(f"the backward of hybrid kernel '{self.name}' failed while running: "
                                     f"{exc}") from exc
        return [grad_in[i].astype(dtype, copy=False) if i in grad_in else np.zeros(shape, dtype)
                for i, (shape, dtype) in enumerate(spec.in_specs)]


def _returned_input(array: np.ndarray, already_copied: bool) -> np.ndarray:
    """A returned input never aliases the caller's array."""
    return array if already_copied else array.copy()


def build(name: str, lowered: LoweredKernel, disk: DiskCache = None, disk_key: str = None) -> CompiledKernel:
    """Compile ``lowered`` with LLVM, or load it from ``disk`` (entry ``disk_key``) when it holds it.  Raises
    KernelBuildError with TVM's message on failure."""
    def compile_now():
        try:
            return tvm.compile(lowered.prim_func, target=TARGET)
        except Exception as exc:  # TVM's errors are TVMError/RuntimeError/ValueError depending on the pass
            raise KernelBuildError(f"compiling hybrid kernel '{name}' with TVM failed: {exc}") from exc

    if disk is None:
        return CompiledKernel(name, lowered, compile_now()[lowered.symbol])
    return CompiledKernel(name, lowered, disk.function(name, disk_key, lowered.symbol, compile_now))


def build_backward(name: str, backward, disk: DiskCache = None, disk_key: str = None) -> CompiledBackward:
    """Compile (or load from ``disk``) the automatic backward ``backward`` of hybrid kernel ``name``."""
    def compile_now():
        try:
            return tvm.compile(backward.prim_func, target=TARGET)
        except Exception as exc:  # noqa: BLE001  TVM's error classes vary by pass
            raise KernelBuildError(f"compiling the backward of hybrid kernel '{name}' failed: {exc}") from exc

    if disk is None:
        return CompiledBackward(name, backward, compile_now()[backward.symbol])
    return CompiledBackward(name, backward, disk.function(name + "_backward", disk_key, backward.symbol,
                                                          compile_now))


class KernelCache:
    """Lowered and compiled kernels per (source text, input shapes, input dtypes, attribute key), in two bounded
    caches of ``entries`` kernels each.

    A runtime store holds one (``runtime.resource(RESOURCE, KernelCache)``); ``get_*`` return the same object for
    the same key while it is cached.  Compiled kernels also go through ``disk`` (a DiskCache of
    ``$NPUSIM_CACHE_DIR/hybrid`` unless given), whose ``compiles`` / ``loads`` count what this cache built and
    what it found on disk.
    """

    def __init__(self, entries: int = KERNEL_ENTRIES, disk: DiskCache = None):
        self._lowered = BoundedCache("hybrid.lowered", entries)
        self._compiled = BoundedCache("hybrid.compiled", entries)
        self._lock = threading.Lock()
        self.disk = disk if disk is not None else DiskCache(TARGET)

    @staticmethod
    def key(source: KernelSource, in_shapes: Sequence, in_dtypes: Sequence, attr_values: Sequence) -> tuple:
        return (source.text, tuple(tuple(int(d) for d in s) for s in in_shapes), tuple(str(d) for d in in_dtypes),
                attrs_key(attr_values), attrs_key(source.defaults))

    def get_lowered(self, source: KernelSource, in_shapes, in_dtypes, attr_values=(), lower=None) -> LoweredKernel:
        """The LoweredKernel of ``source`` for this signature.  ``lower(in_shapes, in_dtypes, attr_values)``
        replaces the Hybrid DSL lowering for other kinds of kernel source (akg ir_builder functions)."""
        key = self.key(source, in_shapes, in_dtypes, attr_values)
        lowered = self._lowered.get(key)
        if lowered is None:
            if lower is None:
                check_kernel(source)
                lowered = lower_kernel(source, in_shapes, in_dtypes, attr_values)
            else:
                lowered = lower(in_shapes, in_dtypes, attr_values)
            lowered = self._lowered.put(key, lowered)
        return lowered

    def get_compiled(self, source: KernelSource, in_shapes, in_dtypes, attr_values=(), lower=None) -> CompiledKernel:
        """The compiled kernel (see :meth:`get_lowered` for ``lower``).  Hybrid DSL kernels are found on disk by
        their source and signature; other kinds by their lowered TIR (their source may call code elsewhere)."""
        key = self.key(source, in_shapes, in_dtypes, attr_values)
        kernel = self._compiled.get(key)
        if kernel is None:
            with self._lock:
                kernel = self._compiled.get(key)
                if kernel is None:
                    lowered = self.get_lowered(source, in_shapes, in_dtypes, attr_values, lower)
                    disk_key = (self.disk.key("hybrid", *key) if lower is None
                                else self.disk.key("tir", lowered.prim_func.script()))
                    kernel = self._compiled.put(key, build(source.name, lowered, self.disk, disk_key))
        return kernel

    def get_backward(self, source: KernelSource, in_shapes, in_dtypes, attr_values=()) -> CompiledBackward:
        """The compiled automatic backward of ``source`` for this signature.  Raises NotDifferentiable (from
        :mod:`npusim.hybrid.autodiff`) when the kernel has no automatic backward."""
        from npusim.hybrid.autodiff import derive_backward
        key = ("backward",) + self.key(source, in_shapes, in_dtypes, attr_values)
        compiled = self._compiled.get(key)
        if compiled is None:
            with self._lock:
                compiled = self._compiled.get(key)
                if compiled is None:
                    lowered = self.get_lowered(source, in_shapes, in_dtypes, attr_values)
                    backward = derive_backward(lowered, in_shapes, in_dtypes)
                    compiled = self._compiled.put(key, build_backward(source.name, backward, self.disk,
                                                                      self.disk.key(*key)))
        return compiled

    def __len__(self) -> int:
        return len(self._compiled)

    def clear(self) -> None:
        with self._lock:
            self._lowered.clear()
            self._compiled.clear()

    def caches(self) -> tuple:
        return (self._lowered, self._compiled)
