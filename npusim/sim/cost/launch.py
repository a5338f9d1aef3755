"""estimate(): a launch's trace -> its :class:`CostReport` (cores replayed by :class:`CoreSim`)."""
from __future__ import annotations

from npusim.sim.cost.core import CoreSim
from npusim.sim.cost.l2 import read_misses
from npusim.sim.cost.report import CoreTimeline, CostReport
from npusim.sim.cost.tables import TABLES_ATTRIBUTE, cost_tables
from npusim.sim.trace import Trace


def pipe_names(chip) -> tuple:
    """The chip's pipes, the scalar unit S first."""
    return cost_tables(chip).names


def estimate(trace: Trace, chip, kernel=None) -> CostReport:
    """Cycle estimate of a launch on ``chip`` (the chip the trace ran on).

    ``kernel`` (the launched :class:`~npusim.sim.kernel.Kernel`) tells which instructions read what others write,
    so that a dependent vector instruction waits for its producer; without it every instruction counts as
    independent.  Cores that ran identical records get identical timelines (computed once).  What depends only on
    the chip or the kernel (pipe order, instruction descriptors, footprints) is built once and reused
    (:mod:`~npusim.sim.cost.tables`).  Where the HBM share can limit a core, the launch's GM reads are first
    split into L2 hits and misses (:mod:`~npusim.sim.cost.l2`)."""
    tables = chip.__dict__.get(TABLES_ATTRIBUTE) or cost_tables(chip)
    blocks = trace.blocks
    statics = trace.statics
    priced = tables.ops.get(id(statics))
    if priced is None or priced.statics is not statics:
        priced = tables.price(statics, chip)
    footprints = None if kernel is None or not tables.tracks_dependences else tables.footprints(kernel, chip)
    if len(blocks) == 1:        # the common small launch: one block on one core, which has all of HBM
        block = blocks[0]
        # the HBM calendar only matters to GM transfers: a trace without one skips working out whether it limits
        port = priced.moves_gm and tables.hbm_bytes_per_cycle < tables.gm_bytes_per_cycle
        l2 = read_misses({block.core: [block]}, priced.ops, chip) if port else None
        sim = CoreSim(trace, chip, priced.ops, tables, footprints, tables.hbm_bytes_per_cycle, port, l2)
        total = sim.run_block(block, 0.0)
        busy, intervals = sim.timeline(tables.names)
        cores = (CoreTimeline(block.core, total, busy, intervals, ((block.block, 0.0, total),)),)
    else:
        by_core = trace.blocks_by_core()
        hbm_share = tables.hbm_bytes_per_cycle / max(1, len(by_core))
        port = priced.moves_gm and tables.port_limits(hbm_share)
        l2 = read_misses(by_core, priced.ops, chip) if port else None
        cores = _cores(trace, chip, priced.ops, tables, footprints, hbm_share, port, by_core, l2)
        total = max((c.total_cycles for c in cores), default=0.0)
    return CostReport(trace.kernel_name, chip.name, trace.block_dim, chip.clock_mhz, total, cores, chip.pipes)


def _cores(trace, chip, ops, tables, footprints, hbm_share, port, by_core: dict, l2) -> tuple:
    """The CoreTimeline of every core; cores that ran identical records (with the same L2 misses) share one
    simulation."""
    done: dict = {}
    cores = []
    misses = (lambda block: None) if l2 is None else (lambda block: l2.get(block.block))
    for core, core_blocks in sorted(by_core.items()):
        signature = tuple(len(b.records) for b in core_blocks)
        timeline = next((t for other, t in done.get(signature, ())
                         if all(a.records == b.records and misses(a) == misses(b)
                                for a, b in zip(other, core_blocks))), None)
        if timeline is None:
            timeline = _simulate(trace, chip, ops, tables, footprints, hbm_share, port, core_blocks, l2)
            done.setdefault(signature, []).append((core_blocks, timeline))
        total, busy, intervals, times = timeline
        spans = tuple((block.block, start, end) for block, (start, end) in zip(core_blocks, times))
        cores.append(CoreTimeline(core, total, busy, intervals, spans))
    return tuple(cores)


def _simulate(trace, chip, ops, tables, footprints, hbm_share, port, blocks, l2) -> tuple:
    """(total cycles, busy per pipe, intervals per pipe, [(start, end)] per block) of one core's blocks."""
    sim = CoreSim(trace, chip, ops, tables, footprints, hbm_share, port, l2)
    clock, times = sim.run(blocks)
    busy, intervals = sim.timeline(tables.names)
    return clock, busy, intervals, times
