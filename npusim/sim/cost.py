"""Cycle model: a launch's trace -> per-core, per-pipe timelines and the kernel's cycles.

Model (pipe level, not cycle accurate):
* The scalar pipe S walks each block's instructions in program order, spending ``issue_cycles`` per instruction it
  hands to another pipe and running scalar instructions itself.  Every other pipe (V, M, MTE1, MTE2, MTE3, FIX)
  executes its queue in order, one instruction at a time: start = max(pipe free, issue time, flags waited for).
* Costs come from the chip table: vector ``startup + per_repeat * repeat_times``; moves ``latency + bytes /
  bandwidth``; mmad ``fixed + ceil(m/16) * ceil(n/16) * ceil(k/kstep)``; scalar and flag ops fixed cycles;
  ``tvm_call`` (a scalar program) ``alu_ops * alu_cycles + mem_accesses * mem_cycles`` (isa/tvm_call/pricing).
* GM transfers also need the core's share of HBM bandwidth (chip bandwidth / active cores), and MTE2 and MTE3
  of one core share that port: a transfer's data phase is placed in the first free gap of the port's calendar.
  A GM transfer completes ``latency`` after its data phase starts plus the data time, but its pipe may start the
  next transfer once this one's requests are out (``latency`` before completion): latencies of back-to-back
  transfers overlap, as DMA engines keep several requests in flight.  Flags and barriers wait for completion.
* ``set_flag(src, dst, e)`` fires when src's earlier work is done; ``wait_flag`` holds dst until then;
  ``pipe_barrier(ALL)`` makes S wait for every pipe.  A wait that can never be answered raises SyncError.
* A core runs its blocks back to back; the kernel takes as long as its slowest core.
"""
from __future__ import annotations

import bisect
import math
from collections import deque
from dataclasses import dataclass
from typing import Mapping

from npusim.errors.sim import SyncError
from npusim.sim.trace import Trace


@dataclass(frozen=True)
class CoreTimeline:
    """One core: when it finished, busy cycles per pipe, and (start, end, instr_index) intervals per pipe."""

    core: int
    total_cycles: float
    busy_cycles: Mapping[str, float]
    intervals: Mapping[str, tuple]
    blocks: tuple


@dataclass(frozen=True)
class CostReport:
    """The cost of one launch.  Cycles are AI-core cycles at ``clock_mhz``."""

    kernel_name: str
    chip_name: str
    block_dim: int
    clock_mhz: float
    total_cycles: float
    cores: tuple
    pipes: tuple

    @property
    def time_us(self) -> float:
        return self.total_cycles / self.clock_mhz

    @property
    def critical_core(self) -> CoreTimeline:
        return max(self.cores, key=lambda c: c.total_cycles)

    def busy_cycles(self, pipe: str, core=None) -> float:
        """Busy cycles of ``pipe`` on ``core`` (default: the slowest core)."""
        timeline = self.critical_core if core is None else next(c for c in self.cores if c.core == core)
        return timeline.busy_cycles.get(pipe, 0.0)

    @property
    def bottleneck_pipe(self) -> str:
        """The busiest pipe of the slowest core."""
        busy = self.critical_core.busy_cycles
        return max(busy, key=busy.get) if busy else "S"

    def utilisation(self) -> dict:
        """pipe -> busy cycles summed over cores / (total cycles x cores used)."""
        denominator = self.total_cycles * max(1, len(self.cores))
        return {pipe: (sum(c.busy_cycles.get(pipe, 0.0) for c in self.cores) / denominator if denominator else 0.0)
                for pipe in self.pipes}


class _PortCalendar:
    """Busy intervals of a core's GM port, kept sorted; places a transfer in the first gap that fits."""

    def __init__(self):
        self.starts: list = []
        self.ends: list = []

    def place(self, earliest: float, duration: float) -> float:
        i = bisect.bisect_right(self.starts, earliest)
        start = max(earliest, self.ends[i - 1]) if i else earliest
        while i < len(self.starts) and self.starts[i] < start + duration:
            start = max(start, self.ends[i])
            i += 1
        self.starts.insert(i, start)
        self.ends.insert(i, start + duration)
        return start


class _CoreSim:
    """Simulates one core's blocks; see the module docstring for the model."""

    def __init__(self, trace: Trace, chip, hbm_share: float):
        self.trace, self.chip, self.statics = trace, chip, trace.statics
        self.hbm_share = hbm_share
        self.pipes = tuple(chip.pipes)
        self.free = dict.fromkeys(self.pipes, 0.0)
        self.done = dict.fromkeys(self.pipes, 0.0)
        self.queues = {p: deque() for p in self.pipes}
        self.flags: dict = {}
        self.intervals = {p: [] for p in self.pipes}
        self.port = _PortCalendar()
        self.block = None

    def run_block(self, block, start: float) -> float:
        self.block = block.block
        self.flags = {}
        for pipe in self.pipes:
            self.free[pipe] = self.done[pipe] = start
        s_time = start
        for record in block.records:
            static = self.statics[record[0]]
            if static.pipe == "S":
                s_time = self._scalar(static, record, s_time)
            else:
                s_time += self.chip.scalar_issue_cycles
                self.queues[static.pipe].append((s_time, record))
                self._advance(static.pipe)
        stuck = [p for p in self.pipes if self.queues[p]]
        if stuck:
            _, record = self.queues[stuck[0]][0]
            raise self._hang(self.statics[record[0]], record)
        return max(s_time, max(self.done.values()))

    def _hang(self, static, record) -> SyncError:
        src, dst, event = static.flag if static.flag else ("?", "?", "?")
        event = record[1] if event == -1 else event
        return SyncError(f"pipe {static.pipe} waits forever at instruction #{static.index} `{static.text}`: "
                         f"no set_flag({src}, {dst}, {event}) can answer it (the core would hang)",
                         kernel=self.trace.kernel_name, block=self.block, instr_index=static.index)

    def _flag_key(self, static, record) -> tuple:
        src, dst, event = static.flag
        return (src, dst, record[1] if event == -1 else event)

    def _scalar(self, static, record, s_time: float) -> float:
        kind = static.cost_kind
        if kind == "scalar":
            cycles = self.chip.scalar_alu_cycles if static.cost_key == "alu" else self.chip.scalar_mem_cycles
            self.intervals["S"].append((s_time, s_time + cycles, static.index))
            return s_time + cycles
        if kind == "scalar_program":  # tvm_call: a whole loop nest on the scalar unit; units = (alu ops, accesses)
            alu_ops, mem_accesses = record[1]
            cycles = alu_ops * self.chip.scalar_alu_cycles + mem_accesses * self.chip.scalar_mem_cycles
            self.intervals["S"].append((s_time, s_time + cycles, static.index))
            return s_time + cycles
        if kind == "barrier":
            if static.barrier_pipe == "S":  # the scalar pipe is in order already
                return s_time
            if any(self.queues[p] for p in self.pipes):
                blocked = next(p for p in self.pipes if self.queues[p])
                raise self._hang(self.statics[self.queues[blocked][0][1][0]], self.queues[blocked][0][1])
            return max(s_time, max(self.done.values()))
        if kind == "set_flag":
            end = s_time + self.chip.flag_cycles
            self._raise_flag(self._flag_key(static, record), end)
            return end
        waiting = self.flags.get(self._flag_key(static, record))
        if not waiting:
            raise self._hang(static, record)
        begin = max(s_time, waiting.popleft())
        # S stalls until the flag arrives; only the wait instruction itself counts as S work
        self.intervals["S"].append((begin, begin + self.chip.flag_cycles, static.index))
        return begin + self.chip.flag_cycles

    def _raise_flag(self, key: tuple, when: float) -> None:
        self.flags.setdefault(key, deque()).append(when)
        if key[1] in self.queues and self.queues[key[1]]:
            self._advance(key[1])

    def _advance(self, pipe: str) -> None:
        queue = self.queues[pipe]
        flag_cycles = self.chip.flag_cycles
        while queue:
            ready, record = queue[0]
            static = self.statics[record[0]]
            start = max(self.free[pipe], ready)
            kind = static.cost_kind
            free = None
            if kind == "wait_flag":
                waiting = self.flags.get(self._flag_key(static, record))
                if not waiting:
                    return
                start = max(start, waiting.popleft())
                end = start + flag_cycles
            elif kind == "set_flag":
                start = max(start, self.done[pipe])
                end = start + flag_cycles
            elif kind == "barrier":
                start = end = max(start, self.done[pipe])
            elif kind == "move":
                end, free = self._move(static, record[1], start)
            else:
                end = start + self._cycles(static, record[1])
            queue.popleft()
            self.free[pipe] = end if free is None else free
            self.done[pipe] = max(self.done[pipe], end)
            if self.free[pipe] > start:
                self.intervals[pipe].append((start, self.free[pipe], static.index))
            if kind == "set_flag":
                self._raise_flag(self._flag_key(static, record), end)

    def _move(self, static, nbytes: int, start: float) -> tuple:
        """(completion time, time the pipe may start its next instruction) of a data_move starting at start."""
        path = self.chip.paths[static.path]
        if "GM" not in static.path:
            end = start + path.latency_cycles + nbytes / path.bytes_per_cycle
            return end, end
        duration = nbytes / min(path.bytes_per_cycle, self.hbm_share)
        end = self.port.place(start + path.latency_cycles, duration) + duration
        return end, end - path.latency_cycles

    def _cycles(self, static, units) -> float:
        if static.cost_kind == "vector":
            return self.chip.vector_costs[static.cost_key].cycles(units, static.dtype)
        if static.cost_kind == "cube":
            m, k, n = units
            kstep = self.chip.mmad_kstep.get(static.dtype, self.chip.cube_k_fp16)
            tiles = math.ceil(m / self.chip.cube_m) * math.ceil(n / self.chip.cube_n) * math.ceil(k / kstep)
            return self.chip.mmad_fixed_cycles + tiles
        raise ValueError(f"no cost formula for {static.cost_kind!r}")


def estimate(trace: Trace, chip) -> CostReport:
    """Cycle estimate of a launch on ``chip`` (the chip the trace ran on)."""
    by_core = trace.blocks_by_core()
    active = max(1, len(by_core))
    hbm_share = chip.hbm_bytes_per_cycle / active
    cores = []
    for core, blocks in sorted(by_core.items()):
        sim = _CoreSim(trace, chip, hbm_share)
        clock, spans = 0.0, []
        for block in blocks:
            end = sim.run_block(block, clock)
            spans.append((block.block, clock, end))
            clock = end
        busy = {p: sum(e - s for s, e, _ in iv) for p, iv in sim.intervals.items() if iv}
        cores.append(CoreTimeline(core, clock, busy, {p: tuple(iv) for p, iv in sim.intervals.items() if iv},
                                  tuple(spans)))
    total = max((c.total_cycles for c in cores), default=0.0)
    return CostReport(trace.kernel_name, chip.name, trace.block_dim, chip.clock_mhz, total, tuple(cores),
                      tuple(chip.pipes))
