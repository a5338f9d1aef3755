"""npusim.sim: the simulated Ascend device.

* chips: :func:`get_chip`, :func:`chip_names` (models in ``chips/*.yaml``)
* what a kernel means: :class:`Target` (chip, overflow mode, cores); which one is in use: :func:`current_runtime`
  / :func:`current_target` / :func:`current_chip` (the API edge), set by :func:`set_chip`, :func:`set_overflow_mode`
  ("saturation" / "inf_nan"; env ``NPUSIM_SOC``, ``NPUSIM_SAT_MODE``) or, for a block, :func:`use_target`
* :class:`Runtime`: target, device, caches, profiler sinks and resources, passed explicitly below the edge
* kernels: :class:`KernelBuilder` to write them, :class:`Kernel` (frozen data, saved with ``Kernel.save`` and read
  back with :func:`load_kernel`)
* running: :class:`Device` (malloc / memcpy / launch / synchronize), :func:`default_device`
* cost and profiling: ``LaunchRecord.cost`` (:class:`CostReport`), :func:`profile`
* the instruction table: :data:`ISA`
"""
from npusim.sim.builder import E, KernelBuilder, all_of, any_of
from npusim.sim.chip import Chip
from npusim.sim.cost import CostReport, estimate
from npusim.sim.device import Device, LaunchRecord, Stream, default_device
from npusim.sim.isa import ISA
from npusim.sim.kernel import Kernel
from npusim.sim.kernel_io import kernel_from_bytes, kernel_from_json, load_kernel
from npusim.sim.memory import DevicePtr
from npusim.sim.profiler import profile
from npusim.sim.runtime import (Runtime, RuntimeStore, chip_names, current_chip, current_runtime, current_target,
                                get_chip, new_runtime, set_chip, set_overflow_mode, use_target)
from npusim.sim.target import Target

__all__ = [
    "E", "KernelBuilder", "all_of", "any_of", "Chip", "chip_names", "current_chip", "current_runtime",
    "current_target", "get_chip", "new_runtime", "set_chip", "set_overflow_mode", "use_target", "Runtime",
    "RuntimeStore", "Target",
    "CostReport", "estimate", "ISA", "Kernel", "kernel_from_bytes", "kernel_from_json", "load_kernel", "DevicePtr",
    "profile", "Device", "LaunchRecord", "Stream", "default_device",
]
