"""akg/hybrid Custom ops on device_target "Ascend": the lowered TIR runs on the simulated device.

On a real Ascend board AKG compiles a hybrid function for the AI core.  npusim takes the same TIR PrimFunc the
CPU path compiles, wraps it into a kernel of one ``tvm_call`` instruction (the scalar-pipe program of
:mod:`npusim.sim.isa.tvm_call`) and launches it on the call's runtime device: inputs are copied to GM,
the outputs (zeroed, as on the CPU path) back, so ``npusim.sim.profile()`` records every launch with its
scalar-pipe cycle estimate.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from npusim.errors import KernelBuildError, SimulatorError
from npusim.sim.kernel import BufRef, Param, Var


class AscendHybridKernel:
    """A lowered hybrid kernel (``npusim.hybrid.kernel_ir.LoweredKernel``) built for the simulated device;
    :meth:`run` has the CPU ``CompiledKernel.run`` signature."""

    def __init__(self, name: str, lowered, programs):
        from npusim.sim.isa.tvm_call import program_kernel
        from npusim.sim.isa.tvm_call.program import load_program
        from npusim.sim.isa.tvm_call.text import program_text_and_func
        self.name = name
        self.lowered = lowered
        try:
            text, parsed = program_text_and_func(lowered.prim_func)
            program = load_program(text, programs, parsed)
        except SimulatorError as exc:
            raise KernelBuildError(f"hybrid kernel '{name}': building it for the simulated Ascend device failed: "
                                   f"{exc.cause}") from None
        params, args = _params(program.params)
        self.kernel = program_kernel(lowered.symbol, text, params, args)
        self._n_inputs = len(program.params) - len(lowered.out_specs) - len(lowered.float_attrs)

    def run(self, inputs: Sequence[np.ndarray], attr_values: Sequence, runtime) -> list:
        """Copy ``inputs`` to ``runtime``'s device, launch, copy the returned arrays back (new arrays)."""
        lowered = self.lowered
        device = runtime.device
        pointers: list = []
        try:
            for array in inputs:
                pointers.append(device.to_device(np.ascontiguousarray(array)))
            for shape, dtype in lowered.out_specs:
                pointers.append(device.malloc(max(1, int(np.prod(shape, dtype=np.int64)) * np.dtype(dtype).itemsize)))
            values = tuple(attr_values) + lowered.default_attrs
            floats = [float(values[p]) for p in lowered.float_attrs]
            device.run(self.kernel, pointers + floats)
            return [self._fetch(device, pointers, role, index, inputs) for role, index in lowered.returns]
        finally:
            for pointer in pointers:
                device.free(pointer)

    def _fetch(self, device, pointers: list, role: str, index: int, inputs) -> np.ndarray:
        if role == "output":
            shape, dtype = self.lowered.out_specs[index]
            return device.from_device(pointers[self._n_inputs + index], shape, dtype)
        array = inputs[index]
        return device.from_device(pointers[index], array.shape, array.dtype)


def _params(specs) -> tuple:
    """Kernel parameters and tvm_call operands for the prim func's parameters (names made unique)."""
    params, args, used = [], [], set()
    for spec in specs:
        name, count = spec.name, 1
        while name in used:
            name, count = f"{spec.name}_{count}", count + 1
        used.add(name)
        if spec.kind == "buffer":
            params.append(Param(name, "gm", spec.dtype, spec.shape))
            args.append(BufRef(name))
        else:
            params.append(Param(name, "scalar", spec.dtype))
            args.append(Var(name))
    return tuple(params), tuple(args)
