"""The cycle model's per-launch L2 (npusim/sim/cost/l2.py): GM reads of lines already brought in during the launch
are served at the core's L2 read rate instead of its HBM share; first touches, and lines the L2 could no longer
hold, come from HBM.  Cycle estimates are deterministic: these compare estimates, not host timing."""
from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest
import yaml

from npusim.errors.sim import SimulatorError
from npusim.sim import Device, KernelBuilder, get_chip
from npusim.sim.cost import estimate
from npusim.sim.cost.l2 import read_misses
from npusim.sim.cost.tables import cost_tables
from npusim.sim.trace import BlockTrace, Trace

CHIP = "Ascend910"
BLOCKS = 32
CHUNK = 8192                # float16 elements per move: 16 KiB
READS = 4                   # moves per block
CHIP_DIR = Path(__file__).resolve().parents[2] / "npusim" / "sim" / "chips"


def _reader(chip, shared: bool):
    """Every block moves READS chunks of x into UB and one chunk out to y: with ``shared`` every block reads the
    same chunks of x (each line from HBM once, then from L2), else each block its own."""
    kb = KernelBuilder("l2_shared" if shared else "l2_distinct", chip=chip)
    x = kb.tensor("float16", ((1 if shared else BLOCKS) * READS * CHUNK,), "GM", "x")
    y = kb.tensor("float16", (BLOCKS * CHUNK,), "GM", "y")
    ub = kb.tensor("float16", (CHUNK,), "UB", "ub")
    bursts = CHUNK * 2 // chip.block_bytes
    with kb.for_range(0, READS) as i:
        first = i * CHUNK if shared else (kb.block_idx * READS + i) * CHUNK
        kb.data_move(ub, x[first], 0, 1, bursts, 0, 0)
    kb.data_move(y[kb.block_idx * CHUNK], ub, 0, 1, bursts, 0, 0)
    return kb.build(inputs=[x], outputs=[y], check=False)


def _launch(chip, shared: bool, mode: str = "auto", monkeypatch=None):
    """(the launch's trace, its CostReport on ``chip``)."""
    if monkeypatch is not None:
        from npusim.sim import executor
        monkeypatch.setattr(executor, "DEFAULT_MODE", mode)
    kernel = _reader(chip, shared)
    device = Device(chip)
    x = np.ones((1 if shared else BLOCKS) * READS * CHUNK, dtype=np.float16)
    ptrs = [device.to_device(x), device.to_device(np.zeros(BLOCKS * CHUNK, dtype=np.float16))]
    trace = device.run(kernel, ptrs, block_dim=BLOCKS).trace
    return trace, estimate(trace, chip)


def _mte2(report) -> float:
    return max(core.busy_cycles.get("MTE2", 0.0) for core in report.cores)


def test_rereading_a_buffer_costs_less_on_mte2_than_distinct_bytes():
    chip = get_chip(CHIP)
    _, shared = _launch(chip, True)
    _, distinct = _launch(chip, False)
    # shared: MTE2 at the GM->UB path's own rate (the L2 serves 31/32 of the bytes); distinct: at the HBM share
    assert _mte2(shared) < _mte2(distinct)
    assert shared.total_cycles < 0.9 * distinct.total_cycles
    # distinct bytes: every core streams at its HBM share (chip bandwidth / 32 cores), as before the L2
    share = chip.hbm_bytes_per_cycle / BLOCKS
    assert _mte2(distinct) >= READS * CHUNK * 2 / share


def test_misses_are_the_first_touches_shared_by_the_cores_of_that_turn():
    chip = get_chip(CHIP)
    trace, _ = _launch(chip, True)
    ops = cost_tables(chip).kernel_ops(trace.statics, chip).ops
    found = read_misses(trace.blocks_by_core(), ops, chip)
    chunk_bytes = CHUNK * 2
    for block in trace.blocks:
        (reads,) = found[block.block].values()
        assert len(reads) == READS
        # every chunk is new in its turn: its bytes come from HBM once, split over the 32 cores that read it
        assert [miss for _, miss in reads] == pytest.approx([chunk_bytes / BLOCKS] * READS)
    assert read_misses(_launch(chip, False)[0].blocks_by_core(), ops, chip) is None     # nothing re-read


def _doubled(trace):
    """``trace`` with every block running its records (and moves) twice over."""
    return dataclasses.replace(trace, blocks=tuple(
        BlockTrace(b.block, b.core, b.records + b.records, b.gm_spans + b.gm_spans) for b in trace.blocks))


def test_capacity_overflow_falls_back_to_hbm():
    chip = get_chip(CHIP)
    tiny = dataclasses.replace(chip, name="Ascend910-tiny-l2", l2_bytes=chip.l2_line_bytes * 4)
    trace = _doubled(_launch(chip, False)[0])       # each block reads its own chunks, then again
    ops = cost_tables(chip).kernel_ops(trace.statics, chip).ops
    for chip_model, expected in ((chip, 0.0), (tiny, CHUNK * 2.0)):
        found = read_misses(trace.blocks_by_core(), ops, chip_model)
        for block in trace.blocks:
            (reads,) = found[block.block].values()
            assert [miss for _, miss in reads[:READS]] == pytest.approx([CHUNK * 2.0] * READS)   # first touches
            assert [miss for _, miss in reads[READS:]] == pytest.approx([expected] * READS)
    # a 4-line L2 holds nothing a block reads again: the estimate is the one without an L2 (no spans known)
    unknown = dataclasses.replace(trace, blocks=tuple(dataclasses.replace(b, gm_spans=[]) for b in trace.blocks))
    assert estimate(trace, tiny).total_cycles == pytest.approx(estimate(unknown, tiny).total_cycles, rel=1e-12)
    assert estimate(trace, chip).total_cycles < estimate(unknown, chip).total_cycles


def test_rates_and_line_come_from_the_chip_yaml():
    for path in sorted(CHIP_DIR.glob("*.yaml")):
        data = yaml.safe_load(path.read_text())
        chip = get_chip(data.get("name") or path.stem)
        memory = data["memory"]
        assert chip.l2_read_bytes_per_cycle == memory["l2_read_bytes_per_cycle"]
        assert chip.l2_line_bytes == memory["l2_line_bytes"]
        assert chip.l2_bytes == memory["l2_bytes"]
        for field in ("l2_read_bytes_per_cycle", "l2_line_bytes"):
            assert "ascend-hw.md" in chip.sources[f"memory.{field}"]
    chip = get_chip(CHIP)
    slow = dataclasses.replace(chip, name="Ascend910-slow-l2", l2_read_bytes_per_cycle=10.0)
    trace = _launch(chip, True)[0]
    assert _mte2(estimate(trace, slow)) > _mte2(estimate(trace, chip))


def test_lockstep_and_block_by_block_record_the_same_spans(monkeypatch):
    chip = get_chip(CHIP)
    for shared in (True, False):
        fast, _ = _launch(chip, shared, "lockstep", monkeypatch)
        reference, _ = _launch(chip, shared, "reference", monkeypatch)
        assert [b.spans() for b in fast.blocks] == [b.spans() for b in reference.blocks]
        assert [b.records for b in fast.blocks] == [b.records for b in reference.blocks]
        spans = reference.blocks[3].gm_spans
        assert len(spans) == READS + 1
        start = 0 if shared else 3 * READS * CHUNK * 2
        assert [s[2] for s in spans[:READS]] == [start + i * CHUNK * 2 for i in range(READS)]
        assert spans[-1][1:] == (1, 3 * CHUNK * 2, 1, CHUNK * 2, CHUNK * 2)        # y, block 3's chunk


def test_a_write_brings_its_lines_in():
    chip = get_chip(CHIP)
    trace = _launch(chip, True)[0]
    statics = trace.statics
    read, write = trace.blocks[0].gm_spans[0], trace.blocks[0].gm_spans[-1]
    read_record, write_record = trace.blocks[0].records[0], trace.blocks[0].records[-1]
    assert read_record[0] == read[0] and write_record[0] == write[0]
    # block 0 writes chunk 0 of y; block 1 (another core, a later turn) reads it back
    back = (read[0], write[1], write[2], write[3], write[4], write[5])
    blocks = (BlockTrace(0, 0, [write_record], [write]), BlockTrace(1, 1, [read_record, read_record], [read, back]))
    ops = cost_tables(chip).kernel_ops(statics, chip).ops
    found = read_misses({0: [blocks[0]], 1: [blocks[1]]}, ops, chip)
    (reads,) = found[1].values()
    assert [miss for _, miss in reads] == [CHUNK * 2.0, 0.0]        # x's chunk is new; y's was written


def test_a_trace_whose_spans_do_not_match_its_records_is_rejected():
    chip = get_chip(CHIP)
    trace = _launch(chip, True)[0]
    broken = tuple(dataclasses.replace(b, gm_spans=b.gm_spans[1:]) for b in trace.blocks)
    with pytest.raises(SimulatorError, match="GM spans"):
        estimate(Trace(trace.kernel_name, trace.chip_name, trace.block_dim, trace.num_cores, trace.statics,
                       broken), chip)


def test_loop_trips_log_one_unexpanded_entry_that_expands_to_every_trip():
    from npusim.sim.trace import BlockTrace, SpanTrips, expand_spans
    trips = SpanTrips(3, 0, 64, 2, 32, 128, trips=4, step_bytes=256)
    assert trips.expand() == [(3, 0, 64 + 256 * t, 2, 32, 128) for t in range(4)]
    single = (5, 1, 0, 1, 32, 32)
    assert expand_spans([single, trips, single]) == [single, *trips.expand(), single]
    plain = [single]
    assert expand_spans(plain) is plain
    assert BlockTrace(0, 0, [], [trips]).spans() == trips.expand()
