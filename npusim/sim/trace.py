"""What one launch did, instruction by instruction: the executor writes it, the cost model and profiler read it.

Each block's trace is a list of ``(instr_index, units)`` records in program order.  ``units`` is what the cost of
that instruction depends on: repeat_times (vector), bytes (data_move), (m, k, n) (mmad), event id (flags).  The
static facts about each instruction (pipe, cost row, dtype, path) are in ``statics[instr_index]``.

Beside its records, each block keeps the GM bytes its ``data_move`` instructions touched, one span per move to or
from GM in program order: ``(instr_index, param, start_byte, nburst, burst_bytes, pitch_bytes)`` (``param``: the
kernel parameter's index; burst ``i`` covers ``start_byte + i * pitch_bytes`` for ``burst_bytes`` bytes).  The cost
model's L2 (:mod:`npusim.sim.cost.l2`) reads them; the records stay ``(index, units)`` so that replaying a record
costs what it did.  A loop whose trips the executor runs as one copy logs one :class:`SpanTrips` for all of them,
expanded only when the spans are read (:meth:`BlockTrace.spans`): launches that are not priced never pay for it.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping


@dataclass(frozen=True)
class SpanTrips:
    """The GM spans of ``trips`` runs of one data_move whose starts step by ``step_bytes`` (see the module
    docstring), unexpanded."""

    index: int
    param: int
    start_byte: int
    nburst: int
    burst_bytes: int
    pitch_bytes: int
    trips: int
    step_bytes: int

    def expand(self) -> list:
        """One span tuple per trip, in trip order."""
        return [(self.index, self.param, self.start_byte + t * self.step_bytes, self.nburst, self.burst_bytes,
                 self.pitch_bytes) for t in range(self.trips)]


def expand_spans(spans: list) -> list:
    """``spans`` with every :class:`SpanTrips` replaced by its span tuples."""
    if not any(type(span) is SpanTrips for span in spans):
        return spans
    out: list = []
    for span in spans:
        if type(span) is SpanTrips:
            out.extend(span.expand())
        else:
            out.append(span)
    return out


@dataclass(frozen=True)
class BlockTrace:
    """The records of one block, which ran on ``core``, and its data moves' GM spans (see the module docstring;
    empty when unknown: the cost model then serves every GM read from HBM)."""

    block: int
    core: int
    records: list
    gm_spans: list = field(default_factory=list)

    def spans(self) -> list:
        """The GM spans as tuples, one per data_move to or from GM (loop trips expanded)."""
        return expand_spans(self.gm_spans)


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
