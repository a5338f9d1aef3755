"""What the cycle model reports for one launch: per-core timelines and the kernel's cycles."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping


@dataclass(frozen=True, init=False)
class CoreTimeline:
    """One core: when it finished, busy cycles per pipe, and (start, end, instr_index) intervals per pipe.

    An interval is the time an instruction held its pipe (a pipelined instruction's result may complete later);
    ``blocks`` are (block, start, end) spans in the order the core ran them."""

    core: int
    total_cycles: float
    busy_cycles: Mapping[str, float]
    intervals: Mapping[str, tuple]
    blocks: tuple

    def __init__(self, core: int, total_cycles: float, busy_cycles: Mapping[str, float],
                 intervals: Mapping[str, tuple], blocks: tuple):
        # frozen: each field is set once, straight into the instance dict (the generated __init__'s per-field
        # object.__setattr__ is a good part of the cycle model's cost on a small launch)
        self.__dict__.update(core=core, total_cycles=total_cycles, busy_cycles=busy_cycles, intervals=intervals,
                             blocks=blocks)


@dataclass(frozen=True, init=False)
class CostReport:
    """The cost of one launch.  Cycles are AI-core cycles at ``clock_mhz``."""

    kernel_name: str
    chip_name: str
    block_dim: int
    clock_mhz: float
    total_cycles: float
    cores: tuple
    pipes: tuple

    def __init__(self, kernel_name: str, chip_name: str, block_dim: int, clock_mhz: float, total_cycles: float,
                 cores: tuple, pipes: tuple):
        # frozen: set once, straight into the instance dict (as CoreTimeline)
        self.__dict__.update(kernel_name=kernel_name, chip_name=chip_name, block_dim=block_dim,
                             clock_mhz=clock_mhz, total_cycles=total_cycles, cores=cores, pipes=pipes)

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
