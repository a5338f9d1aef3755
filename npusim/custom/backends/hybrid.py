"""ops.Custom func_types "hybrid" and "akg": Hybrid DSL functions compiled with TVM (LLVM, CPU).

"hybrid" needs a ``@kernel`` function; "akg" takes a plain function and, like MindSpore, sniffs its source:
"ir_builder" → IR-builder kernel, "compute" → TVM compute kernel, otherwise Hybrid DSL.  Only the Hybrid DSL
kind is supported (the other two raise UnsupportedError).  With device_target "Ascend" (at the op's construction)
the kernel runs on the simulated device instead of the host (:mod:`.hybrid_ascend`).
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from npusim.custom.backends.base import Backend, CallAttrs, OpDesc
from npusim.errors import OpTypeError, OpValueError, UnsupportedError
from npusim.hybrid.attrs import attrs_key
from npusim.hybrid.checks import check_kernel
from npusim.hybrid.decorator import is_kernel
from npusim.hybrid.source import KernelSource, load_source
from npusim.util.cache import BoundedCache

#: input signatures one op keeps compiled kernels and inferred outputs for
SIGNATURE_ENTRIES = 256


class HybridBackend(Backend):
    """Runs a Hybrid DSL function: static checks at construction, compile per input signature (cached).  On
    device_target "Ascend" each launch runs on the call's simulated device (``needs_runtime``)."""

    can_infer = True

    def __init__(self, desc: OpDesc, runtime=None):
        super().__init__(desc, runtime)
        self.needs_runtime = desc.device_target == "Ascend"
        self.source: KernelSource = self._load(desc.func)
        check_kernel(self.source)
        # launch: (shapes, dtypes, attr key) → (CompiledKernel, shapes, dtypes); infer: → (out shapes, out dtypes)
        self._signatures = BoundedCache(f"hybrid.signatures[{desc.name}]", SIGNATURE_ENTRIES)
        self._inferred = BoundedCache(f"hybrid.inferred[{desc.name}]", SIGNATURE_ENTRIES)

    def _load(self, func) -> KernelSource:
        if not is_kernel(func):
            raise OpTypeError("'func' must be a function decorated by kernel")
        return load_source(func)

    def _cache(self):
        from npusim.hybrid.compile import RESOURCE, KernelCache   # imports TVM: only once the op is used
        return self.runtime.resource(RESOURCE, KernelCache)

    def infer(self, in_shapes: Sequence[tuple], in_dtypes: Sequence[str],
              attrs: CallAttrs) -> tuple[list[tuple], list[str]]:
        """Output shapes/dtypes from the function's output_tensor calls (and returned inputs)."""
        key = (tuple(map(tuple, in_shapes)), tuple(map(str, in_dtypes)), attrs_key(attrs.values))
        specs = self._inferred.get(key)
        if specs is None:
            lowered = self._lower(in_shapes, in_dtypes, attrs.values)
            specs = ([shape for shape, _ in lowered.result_specs], [dtype for _, dtype in lowered.result_specs])
            self._inferred.put(key, specs)
        return list(specs[0]), list(specs[1])

    def launch(self, inputs: list[np.ndarray], attrs: CallAttrs,
               out_shapes: list[tuple], out_dtypes: list[str], runtime=None) -> list[np.ndarray]:
        """Compile (once per signature) and run; check the outputs agree with ``out_shapes``/``out_dtypes``."""
        try:
            signature = tuple([(a.shape, a.dtype) for a in inputs])
        except AttributeError:
            inputs = [np.asarray(a) for a in inputs]
            signature = tuple([(a.shape, a.dtype) for a in inputs])
        key = (signature, attrs_key(attrs.values)) if attrs.values else signature
        entry = self._signatures.get(key)
        if entry is None:
            entry = self._prepare(inputs, attrs.values)
            self._signatures.put(key, entry)
        kernel, want_shapes, want_dtypes = entry
        if out_shapes != want_shapes or out_dtypes != want_dtypes:
            self._check_outputs(out_shapes, out_dtypes, want_shapes, want_dtypes)
        if self.needs_runtime:
            return kernel.run(inputs, attrs.values, runtime or self.runtime)
        return kernel.run(inputs, attrs.values)

    def _prepare(self, inputs, attr_values):
        shapes = [a.shape for a in inputs]
        dtypes = [a.dtype.name for a in inputs]
        lowered = self._lower(shapes, dtypes, attr_values)
        if self.desc.device_target == "Ascend":  # the simulated device runs the TIR as one scalar-pipe program
            from npusim.custom.backends.hybrid_ascend import AscendHybridKernel
            kernel = AscendHybridKernel(self.source.name, lowered, self.runtime.sim.programs)
        else:
            kernel = self._translate(lambda: self._cache().get_compiled(self.source, shapes, dtypes, attr_values))
        return kernel, [s for s, _ in lowered.result_specs], [d for _, d in lowered.result_specs]

    def _lower(self, in_shapes, in_dtypes, attr_values):
        return self._translate(lambda: self._cache().get_lowered(self.source, in_shapes, in_dtypes, attr_values))

    def _translate(self, action):
        """Run ``action``; a dtype the DSL cannot hold becomes OpTypeError naming the op."""
        try:
            return action()
        except TypeError as exc:
            if isinstance(exc, OpTypeError):
                raise
            raise OpTypeError(f"Custom op '{self.desc.name}' (func_type={self.desc.func_type!r}): {exc}") from exc

    def _check_outputs(self, out_shapes, out_dtypes, want_shapes, want_dtypes):
        given_shapes = [tuple(int(d) for d in shape) for shape in out_shapes]
        given_dtypes = [np.dtype(d).name for d in out_dtypes]
        if given_shapes == want_shapes and given_dtypes == want_dtypes:
            return
        raise OpValueError(
            f"Custom op '{self.desc.name}' (func_type={self.desc.func_type!r}): the given out_shape/out_dtype "
            f"{given_shapes}/{given_dtypes} do not match what the hybrid function '{self.source.name}' "
            f"returns: {want_shapes}/{want_dtypes}")


class AkgBackend(HybridBackend):
    """func_type "akg": plain or decorated functions; only the Hybrid DSL kind runs here."""

    def _load(self, func) -> KernelSource:
        if not callable(func):
            raise OpTypeError(f"Custom op '{self.desc.name}': for func_type 'akg', 'func' must be a function, "
                              f"but got {type(func).__name__}")
        source = load_source(func)
        kind = akg_kind(source.text)
        if kind != "hybrid":
            raise UnsupportedError(
                f"Custom op '{self.desc.name}': the akg function '{source.name}' is a {kind} kernel (its source "
                f"mentions '{'ir_builder' if kind == 'ir_builder' else 'compute'}'); npusim runs only akg functions "
                "written in the Hybrid DSL (output_tensor + loops)")
        return source


def akg_kind(text: str) -> str:
    """MindSpore's sniffing of an akg function's source: "ir_builder", "compute" or "hybrid".

    A source that mentions "compute" only in prose but allocates with output_tensor is taken as hybrid
    (MindSpore would try to build it as a compute kernel and fail).
    """
    if "ir_builder" in text:
        return "ir_builder"
    if "compute" in text and "output_tensor(" not in text:
        return "compute"
    return "hybrid"
