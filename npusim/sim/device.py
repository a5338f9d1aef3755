"""The device runtime, shaped like Ascend's (aclrtMalloc / aclrtMemcpy / launch / aclrtSynchronizeStream).

    dev = Device()                       # the current runtime's chip (NPUSIM_SOC / set_chip / Ascend910)
    x = dev.to_device(np.ones(4096, np.float16))
    y = dev.malloc(4096 * 2)
    rec = dev.launch(kernel, [x, y], block_dim=8)      # queued on the default stream
    dev.synchronize()                                   # runs it; errors surface here
    out = dev.from_device(y, (4096,), "float16")
    rec.cost.total_cycles, rec.cost.time_us

Launches are asynchronous: a stream runs its queued work at ``synchronize()`` (or before any blocking memcpy),
in order.  Workspace parameters the caller does not pass are allocated for the launch.  Parameters marked
``atomic_clean`` have their declared bytes zeroed right before the kernel runs (CANN's atomic-clean step; it is
a separate memset on hardware, so its time is not part of the kernel's cycles); no other memory is cleared.

A device belongs to a runtime (:mod:`npusim.sim.runtime`), given or current when the device is made: it compiles
kernels into that runtime's simulator caches and reports every launch to the runtime's profiler sinks.
"""
from __future__ import annotations

from typing import Optional, Sequence

import numpy as np

from npusim.errors.sim import DeviceMemoryError, InvalidOperandError
from npusim.sim import executor
from npusim.sim.chip import Chip
from npusim.sim.compiler import compile_for, compile_kernel
from npusim.sim.dtypes import np_dtype
from npusim.sim.geometry import BLOCK_DIM_MAX
from npusim.sim.kernel import Kernel
from npusim.sim.memory import POISON_BYTE, DevicePtr, GlobalMemory

_BYTE_MAX = int(np.iinfo(np.uint8).max)     # memset fills bytes


class LaunchRecord:
    """One kernel launch: ``trace`` once it ran; ``cost`` (the cycle model's report) computed on first use."""

    def __init__(self, kernel: Kernel, chip: Chip, block_dim: int):
        self.kernel, self.chip, self.block_dim = kernel, chip, block_dim
        self.trace = None
        self._cost = None

    @property
    def done(self) -> bool:
        return self.trace is not None

    @property
    def cost(self):
        if self.trace is None:
            raise InvalidOperandError(f"kernel {self.kernel.name} has not run yet: synchronize the stream first")
        if self._cost is None:
            from npusim.sim.cost import estimate
            self._cost = estimate(self.trace, self.chip, self.kernel)
        return self._cost


class Stream:
    """An in-order queue of device work; ``synchronize`` runs everything queued."""

    def __init__(self, device: "Device"):
        self.device = device
        self._pending: list = []

    def enqueue(self, work) -> None:
        self._pending.append(work)

    def synchronize(self) -> None:
        while self._pending:
            work = self._pending.pop(0)
            try:
                work()
            except BaseException:
                self._pending.clear()
                raise


class Device:
    """A simulated Ascend device: GM of the chip's HBM size, streams, kernel launches.

    ``chip``: a Chip, a chip name (in its default overflow mode) or None for the runtime's chip (which follows
    set_overflow_mode / NPUSIM_SAT_MODE).  ``overflow_mode``: "saturation" or "inf_nan" for this device (as CANN's
    aclrtSetDeviceSatMode; OverflowModeError if the chip does not support it).  ``runtime``: the runtime whose
    caches and profiler sinks the device uses (None: the current runtime).
    """

    def __init__(self, chip=None, fill_byte: int = POISON_BYTE, *, overflow_mode: Optional[str] = None,
                 runtime=None):
        if runtime is None:
            from npusim.sim.runtime import current_runtime
            runtime = current_runtime()
        if chip is None:
            chip = runtime.target.chip
        elif not isinstance(chip, Chip):
            chip = runtime.store.chips.get(chip)
        self.chip = chip if overflow_mode is None else chip.with_overflow_mode(overflow_mode, "Device")
        self._caches = runtime.store.sim
        self._sinks = runtime.store.sinks
        self.gm = GlobalMemory(self.chip.hbm_bytes, self.chip.block_bytes)
        self.fill_byte = fill_byte
        self.default_stream = Stream(self)
        self._streams = [self.default_stream]

    # -- memory ---------------------------------------------------------------------------------------------
    def malloc(self, size_bytes: int) -> DevicePtr:
        """Allocate ``size_bytes`` of GM (zeroed, rounded up to whole blocks of the chip: 32 bytes)."""
        return self.gm.malloc(size_bytes)

    def free(self, ptr: DevicePtr) -> None:
        self.synchronize()
        self.gm.free(ptr)

    def create_stream(self) -> Stream:
        stream = Stream(self)
        self._streams.append(stream)
        return stream

    def memcpy(self, dst, src, size_bytes: Optional[int] = None) -> None:
        """Blocking copy host<->device or device<->device.  dst/src: DevicePtr or numpy array; the size
        defaults to the array's bytes (host side) or must be given (device to device)."""
        self.synchronize()
        self._copy(dst, src, size_bytes)

    def memcpy_async(self, dst, src, size_bytes: Optional[int] = None, stream: Optional[Stream] = None) -> None:
        (stream or self.default_stream).enqueue(lambda: self._copy(dst, src, size_bytes))

    def _copy(self, dst, src, size_bytes) -> None:
        if isinstance(dst, DevicePtr) and isinstance(src, np.ndarray):
            data = np.ascontiguousarray(src).view(np.uint8).reshape(-1)
            count = _host_count(data.size, size_bytes, "source")
            self.gm.region(dst, count)[...] = data[:count]
        elif isinstance(dst, np.ndarray) and isinstance(src, DevicePtr):
            if not dst.flags.c_contiguous:
                raise DeviceMemoryError("memcpy to host needs a C-contiguous destination array")
            out = dst.view(np.uint8).reshape(-1)
            count = _host_count(out.size, size_bytes, "destination")
            out[:count] = self.gm.region(src, count)
        elif isinstance(dst, DevicePtr) and isinstance(src, DevicePtr):
            if size_bytes is None:
                raise DeviceMemoryError("device-to-device memcpy needs size_bytes")
            self.gm.region(dst, size_bytes)[...] = self.gm.region(src, size_bytes)
        else:
            raise DeviceMemoryError(f"memcpy between {type(src).__name__} and {type(dst).__name__} is not a copy "
                                    f"the runtime supports (use DevicePtr and numpy arrays)")

    def memset(self, ptr: DevicePtr, value: int, size_bytes: int) -> None:
        """Blocking fill of ``size_bytes`` bytes at ``ptr`` with the byte ``value`` (aclrtMemset)."""
        if not 0 <= int(value) <= _BYTE_MAX:
            raise DeviceMemoryError(f"memset value {value} is not a byte (0..{_BYTE_MAX})")
        self.synchronize()
        self.gm.region(ptr, int(size_bytes))[...] = int(value)

    def to_device(self, array) -> DevicePtr:
        """Allocate GM for ``array`` and copy it there."""
        array = np.ascontiguousarray(array)
        ptr = self.malloc(max(array.nbytes, 1))
        self.memcpy(ptr, array)
        return ptr

    def from_device(self, ptr: DevicePtr, shape, dtype) -> np.ndarray:
        """Copy ``shape`` elements of ``dtype`` at ``ptr`` into a new host array."""
        out = np.empty(shape, dtype=np_dtype(str(np.dtype(dtype))))
        self.memcpy(out, ptr)
        return out

    # -- kernels --------------------------------------------------------------------------------------------
    def launch(self, kernel: Kernel, args: Sequence, block_dim: Optional[int] = None,
               stream: Optional[Stream] = None, *, block_order: Optional[Sequence[int]] = None) -> LaunchRecord:
        """Queue ``kernel`` with ``args`` (one per parameter, in order; trailing workspaces may be omitted).

        ``block_order``: a permutation of the block indices to run the blocks in on the host (default: in
        order), to check that a kernel's result does not depend on it.
        """
        block_dim = int(kernel.block_dim if block_dim is None else block_dim)
        if not 1 <= block_dim <= BLOCK_DIM_MAX:
            raise InvalidOperandError(f"block_dim {block_dim} outside [1, {BLOCK_DIM_MAX}]", kernel=kernel.name)
        order = None if block_order is None else executor.block_sequence(block_dim, block_order)  # checked now
        compiled = compile_for(kernel, self.chip, self._caches)
        gm_args, scalar_args = self._bind(kernel, list(args))
        cleans = [(gm_args[i], _declared_bytes(p, gm_args[i].data.size)) for i, p in enumerate(kernel.params)
                  if p.atomic_clean and i in gm_args]
        record = LaunchRecord(kernel, self.chip, block_dim)
        arenas, sinks = self._caches.arenas, self._sinks

        def work():
            for binding, nbytes in cleans:
                binding.data[:nbytes] = 0
            record.trace = executor.run(compiled, gm_args, scalar_args, block_dim, self.fill_byte, order, arenas)
            for session in tuple(sinks):
                session.record(record)

        (stream or self.default_stream).enqueue(work)
        return record

    def run(self, kernel: Kernel, args: Sequence, block_dim: Optional[int] = None, *,
            block_order: Optional[Sequence[int]] = None) -> LaunchRecord:
        """Launch on the default stream and synchronize."""
        record = self.launch(kernel, args, block_dim, block_order=block_order)
        self.synchronize()
        return record

    def debug_run(self, kernel: Kernel, args: Sequence, hook_for, block_dim: Optional[int] = None) -> LaunchRecord:
        """Run ``kernel`` now, block after block, calling a step hook ``hook(ctx, index)`` before every
        instruction: ``hook_for(compiled)`` makes it from the compiled kernel (its ``slots`` name the variables).
        The hook sees the block's variables and registers in ``ctx.env``, its memories through ``ctx.views`` and
        ``ctx.core_memory``; ``index`` is the instruction's pre-order index.  The kernel is compiled afresh for
        this run (never cached); queued work is finished first.  An exception the hook raises ends the run and
        propagates."""
        self.synchronize()
        block_dim = int(kernel.block_dim if block_dim is None else block_dim)
        if not 1 <= block_dim <= BLOCK_DIM_MAX:
            raise InvalidOperandError(f"block_dim {block_dim} outside [1, {BLOCK_DIM_MAX}]", kernel=kernel.name)
        hooks: list = []
        compiled = compile_kernel(kernel, self.chip, self._caches, step_hook=lambda ctx, i: hooks[0](ctx, i))
        hooks.append(hook_for(compiled))
        gm_args, scalar_args = self._bind(kernel, list(args))
        for index, param in enumerate(kernel.params):
            if param.atomic_clean and index in gm_args:
                gm_args[index].data[:_declared_bytes(param, gm_args[index].data.size)] = 0
        record = LaunchRecord(kernel, self.chip, block_dim)
        record.trace = executor.run(compiled, gm_args, scalar_args, block_dim, self.fill_byte, None,
                                    self._caches.arenas, mode="reference")
        return record

    def synchronize(self) -> None:
        """Run all queued work of every stream of this device."""
        for stream in self._streams:
            stream.synchronize()

    def _bind(self, kernel: Kernel, args: list) -> tuple:
        params = kernel.params
        required = [p for p in params if p.kind != "workspace"]
        if len(args) < len(required) or len(args) > len(params):
            raise InvalidOperandError(f"kernel {kernel.name} takes {len(required)} argument(s) "
                                      f"({', '.join(p.name for p in required)}), got {len(args)}")
        gm_args, scalar_args = {}, {}
        for index, param in enumerate(params):
            if index >= len(args):  # a workspace the caller left to us
                args.append(self.malloc(param.size_elems * np_dtype(param.dtype).itemsize))
            value = args[index]
            if param.kind == "scalar":
                if isinstance(value, (DevicePtr, np.ndarray)):
                    raise InvalidOperandError(f"argument {param.name} is a scalar, got {type(value).__name__}")
                scalar_args[param.name] = value
            else:
                gm_args[index] = self._bind_gm(kernel, param, value)
        return gm_args, scalar_args

    def _bind_gm(self, kernel: Kernel, param, ptr) -> executor.GmBinding:
        if not isinstance(ptr, DevicePtr):
            raise InvalidOperandError(f"argument {param.name} must be a DevicePtr, got {type(ptr).__name__}",
                                      kernel=kernel.name)
        data = self.gm.tail(ptr)
        declared = _declared_bytes(param, data.size)
        if declared > data.size:
            raise DeviceMemoryError(f"argument {param.name} declares {declared} bytes but only {data.size} remain "
                                    f"in its allocation after {ptr!r}", kernel=kernel.name)
        block = self.chip.block_bytes
        return executor.GmBinding(data, min(-(-declared // block) * block, data.size))


def _declared_bytes(param, available: int) -> int:
    """Bytes a GM parameter declares: its shape's, or (no shape) the ``available`` bytes to its allocation's end."""
    return param.size_elems * np_dtype(param.dtype).itemsize if param.shape else available


def _host_count(host_bytes: int, size_bytes, side: str) -> int:
    """Bytes a host<->device memcpy moves: ``size_bytes`` (default: the whole host array), within the array."""
    count = host_bytes if size_bytes is None else int(size_bytes)
    if not 0 <= count <= host_bytes:
        raise DeviceMemoryError(f"memcpy of {count} bytes: the host {side} array holds {host_bytes} bytes")
    return count


def default_device() -> Device:
    """The current runtime's device (one per runtime target, made on first use)."""
    from npusim.sim.runtime import current_runtime
    return current_runtime().device
