"""npusim.sim: the simulated Ascend device.

* chips: :func:`get_chip`, :func:`current_chip`, :func:`set_chip`, :func:`chip_names` (models in ``chips/*.yaml``)
* float overflow: :func:`set_overflow_mode` ("saturation" / "inf_nan"; env ``NPUSIM_SAT_MODE`` 0 / 1)
* kernels: :class:`KernelBuilder` to write them, :class:`Kernel` (frozen data, saved with ``Kernel.save`` and read
  back with :func:`load_kernel`)
* running: :class:`Device` (malloc / memcpy / launch / synchronize), :func:`default_device`
* cost and profiling: ``LaunchRecord.cost`` (:class:`CostReport`), :func:`profile`
* the instruction table: :data:`ISA`
"""
from npusim.sim.builder import E, KernelBuilder, all_of, any_of
from npusim.sim.chip import Chip, chip_names, current_chip, get_chip, set_chip, set_overflow_mode
from npusim.sim.cost import CostReport, estimate
from npusim.sim.isa import ISA
from npusim.sim.kernel import Kernel
from npusim.sim.kernel_io import kernel_from_bytes, kernel_from_json, load_kernel
from npusim.sim.memory import DevicePtr
from npusim.sim.profiler import profile
from npusim.sim.runtime import Device, LaunchRecord, Stream, default_device

__all__ = [
    "E", "KernelBuilder", "all_of", "any_of", "Chip", "chip_names", "current_chip", "get_chip", "set_chip",
    "set_overflow_mode",
    "CostReport", "estimate", "ISA", "Kernel", "kernel_from_bytes", "kernel_from_json", "load_kernel", "DevicePtr",
    "profile", "Device", "LaunchRecord", "Stream", "default_device",
]
