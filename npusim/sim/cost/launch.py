"""estimate(): a launch's trace -> its :class:`CostReport` (cores replayed by :class:`CoreSim`)."""
from __future__ import annotations

from npusim.sim.cost.core import CoreSim
from npusim.sim.cost.footprint import Footprints
from npusim.sim.cost.ops import MOVE, describe
from npusim.sim.cost.report import CoreTimeline, CostReport
from npusim.sim.trace import Trace


def pipe_names(chip) -> tuple:
    """The chip's pipes, the scalar unit S first."""
    return ("S",) + tuple(p for p in chip.pipes if p != "S")


def _port_limits(chip, hbm_share: float) -> bool:
    """Whether the cores' share of HBM can limit them: less than the GM paths' rates summed over their pipes."""
    fastest: dict = {}
    for path in chip.paths.values():
        if path.src_scope == "GM" or path.dst_scope == "GM":      # path.touches_gm, without the property call
            rate, known = path.bytes_per_cycle, fastest.get(path.pipe, 0.0)
            fastest[path.pipe] = rate if rate > known else known
    return hbm_share < sum(fastest.values())


def estimate(trace: Trace, chip, kernel=None) -> CostReport:
    """Cycle estimate of a launch on ``chip`` (the chip the trace ran on).

    ``kernel`` (the launched :class:`~npusim.sim.kernel.Kernel`) tells which instructions read what others write,
    so that a dependent vector instruction waits for its producer; without it every instruction counts as
    independent.  Cores that ran identical records get identical timelines (computed once)."""
    by_core = trace.blocks_by_core()
    active = max(1, len(by_core))
    hbm_share = chip.hbm_bytes_per_cycle / active
    names = pipe_names(chip)
    index = {name: i for i, name in enumerate(names)}
    ops = [describe(static, chip, index) for static in trace.statics]
    footprints = Footprints(kernel, chip) if kernel is not None and chip.dependence_latency else None
    # the HBM calendar only matters to GM transfers: a trace without one skips working out whether it limits
    port = any(op[0] == MOVE and op[7] for op in ops) and _port_limits(chip, hbm_share)
    done: dict = {}
    cores = []
    for core, blocks in sorted(by_core.items()):
        signature = tuple(len(b.records) for b in blocks)
        timeline = next((t for other, t in done.get(signature, ())
                         if all(a.records == b.records for a, b in zip(other, blocks))), None)
        if timeline is None:
            timeline = _simulate(trace, chip, ops, names, footprints, hbm_share, port, blocks)
            done.setdefault(signature, []).append((blocks, timeline))
        total, busy, intervals, times = timeline
        spans = tuple((block.block, start, end) for block, (start, end) in zip(blocks, times))
        cores.append(CoreTimeline(core, total, busy, intervals, spans))
    total = max((c.total_cycles for c in cores), default=0.0)
    return CostReport(trace.kernel_name, chip.name, trace.block_dim, chip.clock_mhz, total, tuple(cores),
                      tuple(chip.pipes))


def _simulate(trace, chip, ops, names, footprints, hbm_share, port, blocks) -> tuple:
    """(total cycles, busy per pipe, intervals per pipe, [(start, end)] per block) of one core's blocks."""
    sim = CoreSim(trace, chip, ops, names, footprints, hbm_share, port)
    clock, times = 0.0, []
    for block in blocks:
        end = sim.run_block(block, clock)
        times.append((clock, end))
        clock = end
    busy, intervals = {}, {}
    for name, spans in zip(names, sim.intervals):
        if spans:
            busy[name] = sum([e - s for s, e, _ in spans])
            intervals[name] = tuple(spans)
    return clock, busy, intervals, times
