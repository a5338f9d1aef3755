"""Operators whose compute the vector DSL cannot express (gathers, concatenation, windows, arg-reductions) as plain
TVM computes on the AI core's scalar pipe: still kernels on the simulated device, priced element by element.

    run_te(inv, key, {"self": x}, [out], lambda places: [te.compute(...)], "gathers by index tensors")
"""
from __future__ import annotations

from typing import Callable, Mapping, Sequence

from npusim.aclnn import graph
from npusim.aclnn.kernels import cached_kernel, run_kernel, scalar_kernel


def run_te(inv, key, inputs: Mapping, outputs: Sequence, compute: Callable, reason: str) -> None:
    """Build (once per ``key``) and run a kernel whose inputs are the AclTensors ``inputs`` (name -> tensor, as
    placeholders of their kernel shapes) and whose outputs are ``compute(placeholders) -> [te tensors]``, one per
    AclTensor of ``outputs`` (same element count), written in place."""
    if all(o.numel == 0 for o in outputs):
        return
    names, tensors = list(inputs), list(inputs.values())

    def build(name):
        places = [graph.placeholder(n, t.shape, t.dtype) for n, t in zip(names, tensors)]
        outs = compute(places)
        return scalar_kernel(inv.runtime, name, places, outs, f"{inv.api} {reason}")

    kernel = cached_kernel(inv, (tuple((t.dtype, t.shape) for t in tensors), key), build)
    run_kernel(inv, kernel, [t.data() for t in tensors], [o.data() for o in outputs])


def cast_expr(value, src: str, dst: str):
    """A TVM expression converting ``value`` of dtype ``src`` to ``dst`` (bool: nonzero)."""
    from tvm import tirx
    if src == dst:
        return value
    if dst == "bool":
        return value != tirx.const(0, src)
    if src == "bool":
        return tirx.Select(value, tirx.const(1, dst), tirx.const(0, dst))
    return value.astype(dst)


__all__ = ["cast_expr", "run_te"]
