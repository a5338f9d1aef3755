"""Running a compiled kernel's blocks on simulated cores and recording the trace.

Block ``b`` runs on core ``b % num_cores`` (cores run their blocks one after another; a block sees the local
memory its core's previous block left).  Blocks run in order on the host, or in the order ``block_order`` gives
(a permutation, to check a kernel's result does not depend on it); results do not depend on the order unless
blocks race on GM, which real hardware does not order either (atomic adds into GM differ only by rounding).
The trace lists blocks by index whatever the order.  Errors get the block index added.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Optional

import numpy as np

from npusim.errors.sim import InvalidOperandError, SimulatorError, SyncError
from npusim.sim.compiler import CompiledKernel
from npusim.sim.expr import UNSET
from npusim.sim.isa.context import GM
from npusim.sim.memory import POISON_BYTE, CoreMemory
from npusim.sim.trace import BlockTrace, Trace

MODES = ("auto", "reference", "lockstep", "verify")
DEFAULT_MODE = "auto"


@dataclass(frozen=True)
class GmBinding:
    """A GM tensor argument: ``data`` = the bytes from the argument's pointer to its allocation's end;
    ``limit_bytes`` = how many of them the kernel may touch (declared size rounded up to whole blocks, or all)."""

    data: np.ndarray
    limit_bytes: int


class ExecContext:
    """Mutable state one block runs with: variables, views, trace sink, flags, the core's CMPMASK, and the atomic
    mode of moves into GM (None, or (combine ufunc, numpy dtype); each block starts with none)."""

    __slots__ = ("env", "append", "touch", "views", "gm_hi", "flags", "core_memory", "atomic")

    def __init__(self, views: dict, gm_hi: dict):
        self.views = views
        self.gm_hi = gm_hi
        self.env = []
        self.append = None
        self.touch = None      # appends a data_move's GM span (npusim.sim.trace)
        self.flags = {}
        self.core_memory = None
        self.atomic = None

    @property
    def cmpmask(self):
        return self.core_memory.cmpmask

    @cmpmask.setter
    def cmpmask(self, bits):
        self.core_memory.cmpmask = bits


def num_cores_for(compiled: CompiledKernel) -> int:
    """Cores a launch spreads its blocks over: cube cores for kernels using the cube, else vector cores."""
    chip = compiled.chip
    return chip.cube_core_num if compiled.uses_cube else chip.vector_core_num


def _gm_views(compiled: CompiledKernel, gm_args: dict) -> tuple:
    views, limits = {}, {}
    for key in compiled.view_keys:
        if key[0] != GM:
            continue
        _, index, dtype = key
        binding = gm_args[index]
        isz = np.dtype(dtype).itemsize
        usable = binding.data.size - binding.data.size % isz
        views[key] = binding.data[:usable].view(dtype)
        limits[key] = min(binding.limit_bytes, usable) // isz
    return views, limits


def block_sequence(block_dim: int, block_order=None) -> list:
    """The order blocks run in: 0..block_dim-1, or ``block_order`` checked to be a permutation of it."""
    if block_order is None:
        return list(range(block_dim))
    order = [int(b) for b in block_order]
    if sorted(order) != list(range(block_dim)):
        raise InvalidOperandError(f"block_order {order} is not a permutation of the {block_dim} block indices")
    return order


def run(compiled: CompiledKernel, gm_args: dict, scalar_args: dict, block_dim: int,
        fill_byte: int = POISON_BYTE, block_order=None, arenas=None, mode: Optional[str] = None) -> Trace:
    """Run ``block_dim`` blocks (in ``block_order`` when given).  gm_args: param index -> GmBinding; scalar_args:
    param name -> value; arenas: the ArenaPool local memory comes from (None: fresh arenas).

    ``mode`` (default :data:`DEFAULT_MODE`): "auto" runs the blocks of each wave in lockstep
    (:mod:`npusim.sim.lockstep`) and falls back to block by block whenever lockstep cannot reproduce that run
    exactly (a single block always runs on its own: lockstep has nothing to batch); "reference" runs block by block; "lockstep" runs in lockstep or raises the reason it cannot (tests);
    "verify" runs both ways and raises AssertionError when GM bytes or traces differ (tests).
    """
    mode = DEFAULT_MODE if mode is None else mode
    if mode not in MODES:
        raise InvalidOperandError(f"executor mode {mode!r} is not one of {', '.join(MODES)}")
    order = block_sequence(block_dim, block_order)
    if mode == "verify" and block_order is None:
        from npusim.sim.lockstep.verify import run_both
        return run_both(run, compiled, gm_args, scalar_args, block_dim, fill_byte, arenas)
    start = time.perf_counter()
    gm_views, gm_hi = _gm_views(compiled, gm_args)
    num_cores = num_cores_for(compiled)
    blocks = None
    if (mode == "lockstep" or (mode == "auto" and block_dim > 1)) and block_order is None:
        blocks = _lockstep(compiled, gm_args, scalar_args, block_dim, num_cores, fill_byte, arenas, gm_views, gm_hi,
                           strict=mode == "lockstep")
    if blocks is None:
        blocks = _block_by_block(compiled, order, gm_views, gm_hi, scalar_args, num_cores, fill_byte, arenas)
    return Trace(compiled.kernel.name, compiled.chip.name, block_dim, num_cores, compiled.statics, tuple(blocks),
                 dict(compiled.scope_high_water), time.perf_counter() - start)


def _lockstep(compiled, gm_args, scalar_args, block_dim, num_cores, fill_byte, arenas, gm_views, gm_hi,
              strict: bool):
    """The blocks' traces from a lockstep run, or None when it gave up (GM is then as before the launch)."""
    from npusim.sim.lockstep.runner import run_lockstep
    try:
        with np.errstate(all="ignore"):
            return run_lockstep(compiled, gm_args, scalar_args, block_dim, num_cores, fill_byte, arenas, gm_views,
                                gm_hi)
    except Exception:
        if strict:
            raise
        return None


def _block_by_block(compiled, order, gm_views, gm_hi, scalar_args, num_cores, fill_byte, arenas) -> list:
    """The reference executor: every block on its own, in ``order``; traces in block order."""
    local_keys = [key for key in compiled.view_keys if key[0] != GM]
    cores: dict = {}
    views_by_core: dict = {}
    slots = compiled.slots
    template = [UNSET] * slots.size()
    for name, value in scalar_args.items():
        template[slots.slot(name)] = value
    block_slot = slots.slot("block_idx")
    blocks = []
    try:
        with np.errstate(all="ignore"):
            for block in order:
                core = block % num_cores
                memory = cores.get(core)
                if memory is None:
                    memory = cores[core] = CoreMemory(compiled.chip, fill_byte, arenas)
                    views = dict(gm_views)
                    views.update({key: memory.view(*key) for key in local_keys})
                    views_by_core[core] = views
                blocks.append(_run_block(compiled, block, core, memory, views_by_core[core], gm_hi, template,
                                         block_slot))
    finally:
        views_by_core.clear()
        for memory in cores.values():
            memory.release()
    blocks.sort(key=lambda b: b.block)
    return blocks


def _run_block(compiled, block, core, memory, views, gm_hi, template, block_slot) -> BlockTrace:
    ctx = ExecContext(views, gm_hi)
    ctx.core_memory = memory
    ctx.env = list(template)
    ctx.env[block_slot] = block
    records, spans = [], []
    ctx.append, ctx.touch = records.append, spans.append
    try:
        compiled.run_block(ctx)
    except SimulatorError as exc:
        raise exc.locate(kernel=compiled.kernel.name, block=block)
    unanswered = {key: -count for key, count in ctx.flags.items() if count < 0}
    if unanswered:
        (src, dst, event), missing = next(iter(unanswered.items()))
        raise SyncError(f"wait_flag({src}, {dst}, event {event}) is waited for {missing} more time(s) than "
                        f"set_flag raises it: the core would hang", kernel=compiled.kernel.name, block=block)
    return BlockTrace(block, core, records, spans)
