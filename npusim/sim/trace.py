"""What one launch did, instruction by instruction: the executor writes it, the cost model and profiler read it.

Each block's trace is a list of ``(instr_index, units)`` records in program order.  ``units`` is what the cost of
that instruction depends on: repeat_times (vector), bytes (data_move), (m, k, n) (mmad), event id (flags).  The
static facts about each instruction (pipe, cost row, dtype, path) are in ``statics[instr_index]``.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping


@dataclass(frozen=True)
class BlockTrace:
    """The records of one block, which ran on ``core``."""

    block: int
    core: int
    records: list


@dataclass(frozen=True)
class Trace:
    """A launch's trace.  ``num_cores``: cores the blocks were spread over; ``wall_seconds``: host run time."""

    kernel_name: str
    chip_name: str
    block_dim: int
    num_cores: int
    statics: tuple
    blocks: tuple
    scope_high_water: Mapping = field(default_factory=dict)
    wall_seconds: float = 0.0

    def blocks_by_core(self) -> dict:
        """core -> its blocks in the order they ran."""
        cores: dict = {}
        for block in self.blocks:
            cores.setdefault(block.core, []).append(block)
        return cores

    @property
    def instruction_count(self) -> int:
        return sum(len(b.records) for b in self.blocks)
