"""ops.Custom func_types "hybrid" and "akg": Hybrid DSL functions compiled with TVM (LLVM, CPU).

"hybrid" needs a ``@kernel`` function; "akg" takes a plain function and, like MindSpore, sniffs its source:
"ir_builder" → IR-builder kernel (run with :mod:`npusim.hybrid.ir_builder`'s ``tvm``: ``func(inputs, attrs)``),
"compute" → TVM compute kernel (UnsupportedError), otherwise Hybrid DSL.  With device_target "Ascend" (at the
op's construction) the kernel runs on the simulated device instead of the host (:mod:`.hybrid_ascend`).

Without a ``bprop``, Hybrid DSL ops get MindSpore's automatic backward (:meth:`HybridBackend.automatic_bprop`,
derived by :mod:`npusim.hybrid.autodiff`; it runs on the host CPU).  As in MindSpore, ir_builder kernels get none.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from npusim.custom.attrs import bind_attrs
from npusim.custom.backends.base import Backend, CallAttrs, OpDesc
from npusim.errors import GradientError, OpTypeError, OpValueError, UnsupportedError
from npusim.frontend.tensor import Tensor
from npusim.hybrid.attrs import attrs_key
from npusim.hybrid.checks import check_kernel
from npusim.hybrid.decorator import is_kernel
from npusim.hybrid.source import KernelSource, load_source, original_function
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
        self.lower = None   # the lowering of non-DSL kernel sources (akg ir_builder), see KernelCache.get_lowered
        self.source: KernelSource = self._load(desc.func)
        if self.lower is None:
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
        values = self._attr_values(attrs)
        key = (tuple(map(tuple, in_shapes)), tuple(map(str, in_dtypes)), attrs_key(values))
        specs = self._inferred.get(key)
        if specs is None:
            lowered = self._lower(in_shapes, in_dtypes, values)
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
        values = self._attr_values(attrs)
        key = (signature, attrs_key(values)) if values else signature
        entry = self._signatures.get(key)
        if entry is None:
            entry = self._prepare(inputs, values)
            self._signatures.put(key, entry)
        kernel, want_shapes, want_dtypes = entry
        if out_shapes != want_shapes or out_dtypes != want_dtypes:
            self._check_outputs(out_shapes, out_dtypes, want_shapes, want_dtypes)
        if self.needs_runtime:
            return kernel.run(inputs, values, runtime or self.runtime)
        return kernel.run(inputs, values)

    def _attr_values(self, attrs: CallAttrs) -> tuple:
        """What the kernel source receives of the call's attributes: their values, in order."""
        return attrs.values

    def _prepare(self, inputs, attr_values):
        shapes = [a.shape for a in inputs]
        dtypes = [a.dtype.name for a in inputs]
        lowered = self._lower(shapes, dtypes, attr_values)
        if self.desc.device_target == "Ascend":  # the simulated device runs the TIR as one scalar-pipe program
            from npusim.custom.backends.hybrid_ascend import AscendHybridKernel
            kernel = AscendHybridKernel(self.source.name, lowered, self.runtime.sim.programs)
        else:
            kernel = self._translate(lambda: self._cache().get_compiled(self.source, shapes, dtypes, attr_values,
                                                                        self.lower))
        return kernel, [s for s, _ in lowered.result_specs], [d for _, d in lowered.result_specs]

    def _lower(self, in_shapes, in_dtypes, attr_values):
        return self._translate(lambda: self._cache().get_lowered(self.source, in_shapes, in_dtypes, attr_values,
                                                                 self.lower))

    # ---- the automatic backward -------------------------------------------------------------------------------
    def automatic_bprop(self):
        """MindSpore's ``_hybrid_autodiff``: a ``bprop(*inputs, *attrs, out, dout)`` returning one gradient per
        tensor input, computed by the kernel's derived backward; None when the kernel has no automatic backward
        (no parameters, or not Hybrid DSL)."""
        if self.lower is not None or not self.source.param_names:
            return None

        def bprop(*args):
            *call_args, _out, dout = args
            count = 0
            while count < len(call_args) and isinstance(call_args[count], (Tensor, np.ndarray)):
                count += 1
            arrays = [a.asnumpy() if isinstance(a, Tensor) else np.asarray(a) for a in call_args[:count]]
            attrs = bind_attrs(self.desc.name, self.desc.reg_info, tuple(call_args[count:]), self.desc.func_type)
            douts = list(dout) if isinstance(dout, (tuple, list)) else [dout]
            douts = [d.asnumpy() if isinstance(d, Tensor) else d for d in douts]
            return tuple(Tensor._wrap(g) for g in self.backward(arrays, attrs.values, douts))
        return bprop

    def backward(self, inputs: list, attr_values: tuple, douts: list) -> list:
        """Gradients of the inputs (one per input, of its shape/dtype) given those of the returned values.
        GradientError naming the op and the reason when the kernel cannot be differentiated."""
        from npusim.hybrid.grad_rules import NotDifferentiable   # imports TVM: only on the gradient path
        shapes, dtypes = [a.shape for a in inputs], [a.dtype.name for a in inputs]
        try:
            compiled = self._translate(lambda: self._cache().get_backward(self.source, shapes, dtypes, attr_values))
        except NotDifferentiable as exc:
            raise GradientError(
                f"Custom op '{self.desc.name}' (func_type={self.desc.func_type!r}) has no bprop, and npusim cannot "
                f"derive the automatic backward MindSpore gives hybrid kernels from '{self.source.name}': {exc}. "
                "Pass bprop=... to ops.Custom") from None
        return compiled.run(inputs, douts, attr_values)

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
    """func_type "akg": plain or decorated functions of the Hybrid DSL or ir_builder kind."""

    def _load(self, func) -> KernelSource:
        if not callable(func):
            raise OpTypeError(f"Custom op '{self.desc.name}': for func_type 'akg', 'func' must be a function, "
                              f"but got {type(func).__name__}")
        source = load_source(func)
        kind = akg_kind(source.text)
        if kind == "compute":
            raise UnsupportedError(
                f"Custom op '{self.desc.name}': the akg function '{source.name}' is a TVM compute kernel (its "
                "source mentions 'compute'); npusim runs akg functions written in the Hybrid DSL (output_tensor + "
                "loops) or with tvm.ir_builder")
        if kind == "ir_builder":
            from npusim.hybrid.akg_lower import lower_ir_builder   # imports TVM: only once such an op is built
            plain = original_function(func)
            self.lower = lambda shapes, dtypes, pairs: lower_ir_builder(plain, source.name, shapes, dtypes,
                                                                         dict(pairs))
        return source

    def _attr_values(self, attrs: CallAttrs) -> tuple:
        """ir_builder functions receive the attributes as a dict: (name, value) pairs here."""
        if self.lower is None:
            return attrs.values
        return tuple(zip(attrs.names, attrs.values))


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
