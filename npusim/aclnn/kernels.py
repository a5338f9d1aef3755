"""Building an operator's kernels once per (api, shapes, dtypes, attributes, target) and running them on the
runtime's simulated device.

    kernel = cached_kernel(inv, key, lambda name: dsl_kernel(inv.runtime, name, [x, y], [z]))
    run_kernel(inv, kernel, [a, b], [out.data()])      # results written into the destination arrays in place

Vector kernels come from npusim's TBE DSL (``te_compat.dsl`` computes, ``auto_schedule``, ``lower``); computes the
DSL cannot express (gathers, pooling windows, arg-reductions) are plain TVM computes lowered to the AI core's
scalar pipe (``te_compat.fallback.lower_scalar``).  Either way they run on ``runtime.device`` and every launch is
recorded by an open ``npusim.sim.profile()``.
"""
from __future__ import annotations

import hashlib
import warnings
from typing import Callable, Sequence

import numpy as np

from npusim.errors.aclnn import AclnnError
from npusim.errors.base import KernelBuildError
from npusim.errors.tbe import TbeError

KERNEL_CACHE = "aclnn.kernels"
KERNEL_CACHE_SIZE = 512


def kernel_name(api: str, key) -> str:
    """``aclnnMul_<8 hex digits of the key>``: stable across runs, distinct per variant."""
    digest = hashlib.sha1(repr(key).encode()).hexdigest()[:8]
    return f"{api}_{digest}"


def cached_kernel(inv, key, build: Callable):
    """The kernel of ``inv``'s API for ``key`` (everything the kernel depends on besides the API and the target),
    built by ``build(name)`` on first use inside ``inv.runtime`` (activated, so the DSL's auto-cast reads its chip)
    and kept in the runtime's ``aclnn.kernels`` cache.  A build failure is an AclnnError naming the API."""
    runtime = inv.runtime
    cache = runtime.cache(KERNEL_CACHE, KERNEL_CACHE_SIZE)
    full_key = (inv.api, runtime.target.key, key)
    kernel = cache.get(full_key)
    if kernel is None:
        name = kernel_name(inv.api, full_key)
        from te_compat.fallback import ScalarPipeWarning
        try:
            with runtime.activate(), warnings.catch_warnings():
                warnings.simplefilter("ignore", ScalarPipeWarning)  # the scalar pipe is chosen, not a surprise
                kernel = build(name)
        except (KernelBuildError, TbeError) as exc:  # TbeError: a DSL step this chip lacks
            raise AclnnError(inv.api, f"npusim could not build its kernel {name}: {exc}") from exc
        kernel = cache.put(full_key, kernel)
    return kernel


def dsl_kernel(runtime, name: str, inputs: Sequence, outputs: Sequence):
    """The vector kernel of a DSL graph: parameters ``inputs`` then ``outputs`` (TE tensors)."""
    from te_compat.schedule import auto_schedule
    sch = auto_schedule(list(outputs), runtime=runtime)
    return sch.lower(list(inputs) + list(outputs), name, runtime)


def scalar_kernel(runtime, name: str, inputs: Sequence, outputs: Sequence, reason: str):
    """A scalar-pipe kernel of a plain TVM compute (one TVM-compiled program priced as the AI core's scalar
    unit): parameters ``inputs`` then ``outputs``."""
    from te_compat.fallback import lower_scalar
    return lower_scalar(list(outputs), list(inputs) + list(outputs), name, reason, runtime)


def run_graph(inv, key, arrays: dict, dests: Sequence[np.ndarray], compute: Callable) -> None:
    """Build (once per ``key`` and the arrays' dtypes and shapes) the vector kernel of the DSL graph
    ``compute(placeholders) -> [output tensors]`` over placeholders named and shaped like ``arrays`` (name -> numpy
    array), run it, and write the outputs into ``dests`` in place."""
    from tvm import te
    names = list(arrays)
    specs = tuple((n, arrays[n].dtype.name, tuple(arrays[n].shape) or (1,)) for n in names)

    def build(name):
        places = [te.placeholder(shape, dtype, name=n) for n, dtype, shape in specs]
        return dsl_kernel(inv.runtime, name, places, compute(places))

    kernel = cached_kernel(inv, (specs, key), build)
    run_kernel(inv, kernel, [arrays[n] for n in names], dests)


def run_kernel(inv, kernel, inputs: Sequence[np.ndarray], outputs: Sequence[np.ndarray]) -> None:
    """Copy ``inputs`` to ``inv.runtime.device``, launch ``kernel`` (parameters: inputs then outputs), wait, and
    write each output into its destination array (reshaped to it; any strides) in place."""
    device = inv.runtime.device
    params = [p for p in kernel.params if p.kind != "workspace"]
    if len(params) != len(inputs) + len(outputs):
        raise AclnnError(inv.api, f"kernel {kernel.name} takes {len(params)} tensors, given "
                                  f"{len(inputs)} + {len(outputs)}")
    allocated, args = [], []
    try:
        for array in inputs:
            ptr = device.to_device(np.ascontiguousarray(array))
            allocated.append(ptr)
            args.append(ptr)
        out_ptrs = []
        for param in params[len(inputs):]:
            ptr = device.malloc(max(param.size_elems * np.dtype(param.dtype).itemsize, 1))
            allocated.append(ptr)
            args.append(ptr)
            out_ptrs.append((ptr, param))
        device.launch(kernel, args)
        device.synchronize()
        for (ptr, param), dst in zip(out_ptrs, outputs):
            result = device.from_device(ptr, param.shape, param.dtype)
            dst[...] = result.reshape(dst.shape)
    finally:
        for ptr in allocated:
            device.free(ptr)


__all__ = ["KERNEL_CACHE", "cached_kernel", "dsl_kernel", "kernel_name", "run_graph", "run_kernel", "scalar_kernel"]
