"""Shared helpers of the scalar-pipe fallback tests: build a TE graph's kernel and run it on a fresh device."""
import warnings

import numpy as np

import npusim.sim as sim
from te_compat.fallback import ScalarPipeWarning, lower_scalar


def build(outs, tensors, name="fallback_op", reason="not a vector pattern"):
    """lower_scalar with its (expected) warning silenced."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ScalarPipeWarning)
        return lower_scalar(outs, tensors, name, reason)


def run(kernel, inputs, device=None):
    """Launch ``kernel`` with numpy ``inputs`` for its leading parameters; returns (outputs, LaunchRecord)."""
    device = device or sim.Device()
    pointers = [device.to_device(np.ascontiguousarray(a)) for a in inputs]
    outs = kernel.params[len(inputs):]
    for param in outs:
        pointers.append(device.malloc(param.size_elems * np.dtype(param.dtype).itemsize))
    record = device.run(kernel, pointers)
    results = [device.from_device(p, param.shape, param.dtype) for p, param in zip(pointers[len(inputs):], outs)]
    return results, record
