"""The cycle model's reuse of per-chip and per-kernel work (npusim.sim.cost.tables) changes no number.

What is built once — a chip's pipe order and rates, a compiled kernel's instruction descriptors, a kernel's static
footprints — is kept and reused; these tests check that it is reused, that it is keyed by the objects it was built
from, and that an estimate from warm tables equals one from fresh tables on every field of the report.  Speed
itself is measured by benchmarks/bench_cycle_calibration.py, not here.
"""
import dataclasses

import pytest

from npusim.sim import Device, KernelBuilder, get_chip
from npusim.sim.cost import CoreTimeline, CostReport, estimate
from npusim.sim.cost.tables import TABLES_ATTRIBUTE, CostTables, cost_tables
from npusim.sim.trace import BlockTrace


def _mixed_kernel(block_dim: int = 1):
    """GM moves, flags between MTE2 and V, a dependent vector chain and an independent one, a dynamic event id."""
    kb = KernelBuilder("cost_memo_mixed", block_dim=block_dim)
    gm = kb.tensor("float16", (block_dim * 8192,), "GM", "gm")
    ub = kb.tensor("float16", (16384,), "UB", "ub")
    ev = kb.scalar("int32", "ev", init_value=1)
    kb.data_move(ub, gm[kb.block_idx * 8192], 0, 1, 256, 0, 0)
    kb.set_flag("MTE2", "V", 0)
    kb.wait_flag("MTE2", "V", 0)
    for _ in range(3):
        kb.vadds(128, ub, ub, 1.0, 8, 1, 1, 8, 8)                  # each reads what the one before wrote
    for i in range(3):
        kb.vadds(128, ub[8192 + 1024 * i], ub, 2.0, 4, 1, 1, 8, 8)  # independent of each other
    kb.set_flag("S", "V", ev)
    kb.wait_flag("S", "V", ev)
    kb.set_flag("V", "MTE3", 0)
    kb.wait_flag("V", "MTE3", 0)
    kb.data_move(gm[kb.block_idx * 8192], ub, 0, 1, 256, 0, 0)
    return kb.build()


def _launch(chip, block_dim: int = 1):
    kernel = _mixed_kernel(block_dim)
    dev = Device(chip)
    return dev.run(kernel, [dev.malloc(block_dim * 8192 * 2)], block_dim=block_dim), kernel


def _fresh(chip):
    """The chip with its cost tables dropped (the next estimate builds them anew)."""
    chip.__dict__.pop(TABLES_ATTRIBUTE, None)
    return chip


def _same_report(a: CostReport, b: CostReport) -> None:
    assert dataclasses.astuple(a) == dataclasses.astuple(b)
    for x, y in zip(a.cores, b.cores):
        assert x.intervals == y.intervals and x.busy_cycles == y.busy_cycles and x.blocks == y.blocks


@pytest.mark.parametrize("block_dim", [1, 3])
@pytest.mark.parametrize("with_kernel", [False, True])
def test_warm_tables_give_the_same_report_as_fresh_ones(block_dim, with_kernel):
    chip = get_chip("Ascend910B1")
    record, kernel = _launch(chip, block_dim)
    given = kernel if with_kernel else None
    cold = estimate(record.trace, _fresh(chip), given)
    warm = estimate(record.trace, chip, given)
    again = estimate(record.trace, chip, given)
    _same_report(cold, warm)
    _same_report(warm, again)
    assert cold.total_cycles > 0 and len(cold.cores) == block_dim


def test_dependences_are_tracked_only_with_the_kernel():
    chip = get_chip("Ascend910B1")
    record, kernel = _launch(chip)
    assert estimate(record.trace, chip, kernel).total_cycles > estimate(record.trace, chip).total_cycles
    assert record.cost.total_cycles == estimate(record.trace, chip, kernel).total_cycles   # the device passes it


def test_tables_are_built_once_per_chip_and_keyed_by_identity():
    chip = get_chip("Ascend910B1")
    tables = cost_tables(chip)
    assert cost_tables(chip) is tables and isinstance(tables, CostTables)
    assert tables.names[0] == "S" and set(tables.names) == set(chip.pipes)
    mode = next(m for m in chip.overflow_modes if m != chip.overflow_mode)
    other = chip.with_overflow_mode(mode)                      # another Chip object: its own tables
    assert other is not chip and cost_tables(other) is not tables
    assert chip == dataclasses.replace(chip)                   # the kept tables are no field of the chip


def test_kernel_descriptors_and_footprints_are_reused_per_kernel():
    chip = get_chip("Ascend910B1")
    record, kernel = _launch(chip)
    tables = cost_tables(chip)
    priced = tables.kernel_ops(record.trace.statics, chip)
    assert tables.kernel_ops(record.trace.statics, chip) is priced
    assert priced.moves_gm and len(priced.ops) == len(record.trace.statics)
    footprints = tables.footprints(kernel, chip)
    assert tables.footprints(kernel, chip) is footprints
    twin = _mixed_kernel()                                     # an equal kernel object is a different key
    assert tables.footprints(twin, chip) is not footprints
    assert tables.footprints(None, chip) is None


def test_a_statics_tuple_with_a_recycled_id_is_described_anew():
    chip = get_chip("Ascend910B1")
    record, _ = _launch(chip)
    tables = cost_tables(chip)
    statics = record.trace.statics
    stale = tables.price(statics[:1], chip)                    # an entry for another tuple ...
    tables.ops.put(id(statics), stale)                         # ... filed under this tuple's id
    priced = tables.kernel_ops(statics, chip)
    assert priced is not stale and priced.statics is statics and len(priced.ops) == len(statics)


def test_single_block_path_matches_the_per_core_path():
    """One block alone and the same block on each of two cores (no GM traffic, so the HBM share is moot): the
    per-core timelines equal the single-block one."""
    chip = get_chip("Ascend910B1")
    kb = KernelBuilder("cost_memo_vector")
    ub = kb.tensor("float16", (16384,), "UB", "ub")
    for i in range(4):
        kb.vadds(128, ub[2048 * i], ub, 1.0, 8, 1, 1, 8, 8)
    kernel = kb.build()
    trace = Device(chip).run(kernel, []).trace
    (block,) = trace.blocks
    alone = estimate(trace, chip, kernel)
    twice = estimate(dataclasses.replace(trace, blocks=(block, BlockTrace(1, 1, list(block.records)))),
                     chip, kernel)
    assert twice.total_cycles == alone.total_cycles and len(twice.cores) == 2
    for core in twice.cores:
        assert core.intervals == alone.cores[0].intervals and core.busy_cycles == alone.cores[0].busy_cycles


def test_reports_stay_frozen_dataclasses():
    timeline = CoreTimeline(0, 10.0, {"V": 4.0}, {"V": ((0.0, 4.0, 0),)}, ((0, 0.0, 10.0),))
    report = CostReport("k", "Ascend910B1", 1, 1850.0, 10.0, (timeline,), ("S", "V"))
    with pytest.raises(dataclasses.FrozenInstanceError):
        report.total_cycles = 1.0
    with pytest.raises(dataclasses.FrozenInstanceError):
        timeline.core = 3
    assert dataclasses.replace(timeline, core=2).core == 2 and report.critical_core is timeline
    assert report == CostReport("k", "Ascend910B1", 1, 1850.0, 10.0, (timeline,), ("S", "V"))
    assert dataclasses.asdict(report)["cores"][0]["busy_cycles"] == {"V": 4.0}
