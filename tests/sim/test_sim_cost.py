"""Cycle-model micro-benchmarks against the published 910B figures, and the model's structure.

The full calibration against every published row is tests/sim/test_sim_cost_calibration.py; these pin the
structure: start-up paid once per back-to-back run, result latency for dependent instructions, completion
latency separate from pipe occupancy, HBM sharing, flags and barriers.
"""
import math

import numpy as np
import pytest

from npusim.sim import Device, KernelBuilder, get_chip, set_chip

REFERENCE = {  # opcode: (startup cycles, cycles per repeat), float16, PTO-ISA's 910B1 profiles
    "vadd": (5.9, 2.07), "vadds": (6.0, 1.0), "vexp": (12.0, 4.0), "vcadd": (23.0, 7.0),
    "vdiv": (13.0, 4.0),     # 4 per repeat: msKPP's measured curve and pypto-CA, against PTO-ISA's 8
}
DEPENDENT_WAIT = 16          # PTO-ISA's pipe_barrier(PIPE_V) drain between dependent vector instructions
COPIES = 16


def _vector_kernel(opcode, repeat, copies=COPIES, dependent=True):
    """``copies`` instructions; dependent: each reads what the one before wrote (a = f(a, b))."""
    kb = KernelBuilder(f"bench_{opcode}")
    a = kb.tensor("float16", (128 * 255,), "UB", "a")
    b = kb.tensor("float16", (128 * 255,), "UB", "b")
    c = kb.tensor("float16", (4096,), "UB", "c")
    src = a if dependent else b
    for _ in range(copies):
        if opcode in ("vadd", "vdiv"):
            kb.emit(opcode, 128, a, src, b, repeat, 1, 1, 1, 8, 8, 8)
        elif opcode == "vadds":
            kb.vadds(128, a, src, 2.0, repeat, 1, 1, 8, 8)
        elif opcode == "vexp":
            kb.vexp(128, a, src, repeat, 1, 1, 8, 8)
        else:
            kb.vcadd(128, c if not dependent else a, a, repeat, 1, 1, 8)
    return kb.build(check=False)


def measured_cycles(chip, opcode, repeat, copies=COPIES, dependent=True):
    record = Device(chip).run(_vector_kernel(opcode, repeat, copies, dependent), [])
    return record.cost.total_cycles - get_chip(chip).scalar_issue_cycles, record


@pytest.mark.parametrize("chip", ["Ascend910B1", "Ascend910"])
@pytest.mark.parametrize("opcode", sorted(REFERENCE))
def test_vector_cost_within_10_percent_of_reference(chip, opcode):
    startup, slope = REFERENCE[opcode]
    for repeat in (1, 4, 32, 128, 255):
        iso = startup + slope * repeat
        alone, _ = measured_cycles(chip, opcode, repeat, copies=1)
        assert abs(alone - iso) <= 0.10 * iso, ("isolated", opcode, repeat, alone, iso)
        stream, record = measured_cycles(chip, opcode, repeat, dependent=False)
        per_copy = (stream - alone) / (COPIES - 1)              # independent: only the pipe's issue slot
        assert abs(per_copy - slope * repeat) <= 0.10 * slope * repeat + 1, ("stream", opcode, repeat, per_copy)
        chain, _ = measured_cycles(chip, opcode, repeat)
        per_link = (chain - alone) / (COPIES - 1)               # dependent: start-up and result latency each
        assert abs(per_link - (iso + DEPENDENT_WAIT)) <= 0.10 * (iso + DEPENDENT_WAIT), ("chain", opcode, repeat)
    assert record.cost.bottleneck_pipe == "V"


def test_vector_cost_fit_recovers_startup_and_slope():
    repeats = np.array([1, 16, 64, 128, 255])
    cycles = np.array([measured_cycles("Ascend910B1", "vadd", int(r), copies=1)[0] for r in repeats])
    slope, startup = np.polyfit(repeats, cycles, 1)
    assert abs(slope - 2.07) <= 0.207 and abs(startup - 5.9) <= 0.59


@pytest.mark.parametrize("m,k,n,dtype", [(16, 16, 16, "float16"), (64, 128, 96, "float16"), (128, 256, 128, "int8")])
def test_mmad_tile_formula(m, k, n, dtype):
    """pypto-CA: an mmad completes 20 cycles after its tiles; msKPP: it holds the cube about 2 cycles more than
    its tiles (3 / 10 / 68 cycles for 1 / 8 / 64 tiles in a stream)."""
    kstep = 16 if dtype == "float16" else 32
    out = "float32" if dtype == "float16" else "int32"
    kb = KernelBuilder("mm")
    a = kb.tensor(dtype, (m * k,), "L0A", "a")
    b = kb.tensor(dtype, (k * n,), "L0B", "b")
    c = kb.tensor(out, (m * n,), "L0C", "c")
    kb.mmad(c, a, b, m, k, n, False)
    record = Device("Ascend910").run(kb.build(), [])
    tiles = math.ceil(m / 16) * math.ceil(n / 16) * math.ceil(k / kstep)
    assert abs(record.cost.total_cycles - 1 - (20 + tiles)) <= 0.10 * (20 + tiles)
    assert abs(record.cost.busy_cycles("M") - (tiles + 2)) <= 0.10 * (tiles + 2)
    assert record.cost.bottleneck_pipe == "M"
def test_large_mmad_reaches_about_95_percent_of_cube_peak():
    """msKPP measures about 95 % of the cube's 16x16x16 MACs per cycle on a large fp16 mmad (ascend-hw.md)."""
    m, k, n = 128, 256, 128
    kb = KernelBuilder("mm_peak")
    a = kb.tensor("float16", (m * k,), "L0A", "a")
    b = kb.tensor("float16", (k * n,), "L0B", "b")
    c = kb.tensor("float32", (m * n,), "L0C", "c")
    for _ in range(4):
        kb.mmad(c, a, b, m, k, n, True)
    cost = Device("Ascend910B1").run(kb.build(check=False), []).cost
    efficiency = 4 * m * k * n / (16 * 16 * 16) / cost.busy_cycles("M")
    assert abs(efficiency - 0.95) <= 0.095, efficiency


def _move_then_add(with_flags: bool):
    kb = KernelBuilder("dep")
    gm = kb.tensor("float16", (16384,), "GM", "gm")
    ub = kb.tensor("float16", (16384,), "UB", "ub")
    ub2 = kb.tensor("float16", (16384,), "UB", "ub2")
    kb.data_move(ub, gm, 0, 1, 1024, 0, 0)
    if with_flags:
        kb.set_flag("MTE2", "V", 0)
        kb.wait_flag("MTE2", "V", 0)
    kb.vadds(128, ub2, ub2, 1.0, 64, 1, 1, 8, 8)
    kernel = kb.build()
    dev = Device("Ascend910")
    return dev.run(kernel, [dev.malloc(32768)]).cost


ISOLATED_32K_READ = 792      # pypto-CA: an isolated 32 KiB GM->UB transfer completes after 792 cycles


def test_flags_order_pipes_and_independent_pipes_overlap():
    chained, overlapped = _move_then_add(True), _move_then_add(False)
    move = ISOLATED_32K_READ
    vector = 6 + 64
    assert abs(chained.total_cycles - (move + vector)) <= 0.05 * (move + vector)
    assert abs(overlapped.total_cycles - move) <= 0.05 * move
    v_start = chained.critical_core.intervals["V"][0][0]
    assert v_start >= move


def _imbalanced_kernel(block_dim):
    kb = KernelBuilder("imbalance", block_dim=block_dim)
    ub = kb.tensor("float16", (32640,), "UB", "ub")
    with kb.if_scope(kb.block_idx == 0):
        for _ in range(10):
            kb.vadds(128, ub, ub, 1.0, 255, 1, 1, 8, 8)
    kb.vadds(128, ub, ub, 1.0, 10, 1, 1, 8, 8)
    return kb.build()


def test_kernel_time_is_the_slowest_core_and_blocks_queue_on_cores():
    dev = Device("Ascend910")
    cost = dev.run(_imbalanced_kernel(4), [], block_dim=4).cost
    slow = 10 * (6 + 255) + (6 + 10) + 10 * DEPENDENT_WAIT     # a chain: each vadds reads the one before
    assert abs(cost.total_cycles - slow) <= 0.05 * slow
    assert len(cost.cores) == 4 and cost.critical_core.core == 0
    many = dev.run(_imbalanced_kernel(64), [], block_dim=64).cost   # 64 blocks on 32 cores: two rounds
    assert len(many.cores) == 32
    assert abs(many.busy_cycles("V", core=1) - 2 * 10) <= 1    # busy: the cycles V was held (10 repeats)


def test_hbm_bandwidth_is_shared_between_active_cores():
    chip = get_chip("Ascend910")
    nbytes = 65536
    kb = KernelBuilder("stream", block_dim=32)
    gm = kb.tensor("uint8", (32 * nbytes,), "GM", "gm")
    ub = kb.tensor("uint8", (nbytes,), "UB", "ub")
    kb.data_move(ub, gm[kb.block_idx * nbytes], 0, 1, nbytes // 32, 0, 0)
    kernel = kb.build()
    dev = Device(chip)
    ptr = dev.malloc(32 * nbytes)
    one = dev.run(kernel, [ptr], block_dim=1).cost.total_cycles
    all_cores = dev.run(kernel, [ptr], block_dim=32).cost.total_cycles
    plateau = 78.2 * 2 ** 30 / 1.85e9     # msKPP: one core reads GM at 78.2 GiB/s (per cycle of the 910B)
    assert abs(one - (1 + nbytes / plateau)) <= 0.01 * one
    share = chip.hbm_bytes_per_cycle / 32
    assert share < plateau and abs(all_cores - (1 + nbytes / share)) <= 2


def test_report_fields():
    cost = _move_then_add(True)
    util = cost.utilisation()
    assert set(util) == set(get_chip("Ascend910").pipes)
    assert all(0.0 <= v <= 1.0 for v in util.values())
    assert cost.bottleneck_pipe == "MTE2" and cost.time_us == pytest.approx(cost.total_cycles / 1000.0)


def test_pipe_barrier_all_makes_scalar_wait_and_dynamic_event_ids():
    kb = KernelBuilder("barrier")
    gm = kb.tensor("float16", (16384,), "GM", "gm")
    ub = kb.tensor("float16", (16384,), "UB", "ub")
    ev = kb.scalar("int32", "ev", init_value=2)
    kb.data_move(ub, gm, 0, 1, 1024, 0, 0)
    kb.pipe_barrier("PIPE_ALL")
    kb.set_flag("S", "V", ev)
    kb.wait_flag("S", "V", ev)
    kb.vadds(128, ub, ub, 1.0, 1, 1, 1, 8, 8)
    kernel = kb.build()
    dev = Device("Ascend910")
    cost = dev.run(kernel, [dev.malloc(32768)]).cost
    move_end = 2 + 1 + ISOLATED_32K_READ          # sset (pypto-CA: ALU 2 cycles) and issue, then the transfer
    v_start = cost.critical_core.intervals["V"][0][0]
    assert v_start >= move_end
    assert abs(cost.total_cycles - (move_end + 2 + 7)) <= 3


def test_barrier_on_one_pipe_waits_for_its_completions():
    kb = KernelBuilder("mte2barrier")
    gm = kb.tensor("float16", (8192,), "GM", "gm")
    ub = kb.tensor("float16", (8192,), "UB", "ub")
    kb.data_move(ub, gm, 0, 1, 256, 0, 0)
    kb.pipe_barrier("MTE2")
    kb.data_move(ub[4096], gm[4096], 0, 1, 256, 0, 0)
    dev = Device("Ascend910")
    with_barrier = dev.run(kb.build(), [dev.malloc(16384)]).cost.total_cycles
    one = 462                                           # pypto-CA: an isolated 8 KiB GM->UB transfer
    assert abs(with_barrier - (1 + 2 * one)) <= 3      # the second move starts after the first completes


def test_scalar_pipe_stalled_on_a_flag_counts_as_idle():
    """S waiting in wait_flag(MTE2, S) until a long transfer lands is stalled, not busy: the transfer's pipe stays
    the bottleneck and S's busy time is only its own instructions."""
    kb = KernelBuilder("stall")
    gm = kb.tensor("float16", (16384,), "GM", "gm")
    ub = kb.tensor("float16", (16384,), "UB", "ub")
    kb.data_move(ub, gm, 0, 1, 1024, 0, 0)
    kb.set_flag("MTE2", "S", 0)
    kb.wait_flag("MTE2", "S", 0)
    kernel = kb.build()
    dev = Device("Ascend910")
    cost = dev.run(kernel, [dev.malloc(32768)]).cost
    move = ISOLATED_32K_READ
    assert cost.total_cycles >= move
    assert cost.busy_cycles("S") <= 5
    assert cost.bottleneck_pipe == "MTE2"
