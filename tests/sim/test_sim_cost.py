"""Cycle-model micro-benchmarks against the reference figures (ascend-hw.md), and the model's structure."""
import math

import numpy as np
import pytest

from npusim.sim import Device, KernelBuilder, get_chip, set_chip

REFERENCE = {  # opcode: (startup cycles, cycles per repeat), PTO-ISA fit on 910B, fp16
    "vadd": (5.9, 2.07), "vadds": (6.0, 1.0), "vexp": (12.0, 4.0), "vdiv": (13.0, 8.0), "vcadd": (23.0, 7.0),
}
COPIES = 16


def _vector_kernel(opcode, repeat, copies=COPIES):
    kb = KernelBuilder(f"bench_{opcode}")
    a = kb.tensor("float16", (128 * 255,), "UB", "a")
    b = kb.tensor("float16", (128 * 255,), "UB", "b")
    c = kb.tensor("float16", (4096,), "UB", "c")
    for _ in range(copies):
        if opcode in ("vadd", "vdiv"):
            kb.emit(opcode, 128, a, a, b, repeat, 1, 1, 1, 8, 8, 8)
        elif opcode == "vadds":
            kb.vadds(128, a, a, 2.0, repeat, 1, 1, 8, 8)
        elif opcode == "vexp":
            kb.vexp(128, a, a, repeat, 1, 1, 8, 8)
        else:
            kb.vcadd(128, c, a, repeat, 1, 1, 8)
    return kb.build(check=False)


def measured_cycles_per_instruction(chip, opcode, repeat):
    record = Device(chip).run(_vector_kernel(opcode, repeat), [])
    return record.cost.total_cycles / COPIES, record


@pytest.mark.parametrize("chip", ["Ascend910B1", "Ascend910"])
@pytest.mark.parametrize("opcode", sorted(REFERENCE))
def test_vector_cost_within_10_percent_of_reference(chip, opcode):
    startup, slope = REFERENCE[opcode]
    for repeat in (1, 4, 32, 128, 255):
        cycles, record = measured_cycles_per_instruction(chip, opcode, repeat)
        expected = startup + slope * repeat
        assert abs(cycles - expected) <= 0.10 * expected, (opcode, repeat, cycles, expected)
    assert record.cost.bottleneck_pipe == "V"


def test_vector_cost_fit_recovers_startup_and_slope():
    repeats = np.array([1, 16, 64, 128, 255])
    cycles = np.array([measured_cycles_per_instruction("Ascend910B1", "vadd", int(r))[0] for r in repeats])
    slope, startup = np.polyfit(repeats, cycles, 1)
    assert abs(slope - 2.07) <= 0.207 and abs(startup - 5.9) <= 0.59


@pytest.mark.parametrize("m,k,n,dtype", [(16, 16, 16, "float16"), (64, 128, 96, "float16"), (128, 256, 128, "int8")])
def test_mmad_tile_formula(m, k, n, dtype):
    kstep = 16 if dtype == "float16" else 32
    out = "float32" if dtype == "float16" else "int32"
    kb = KernelBuilder("mm")
    a = kb.tensor(dtype, (m * k,), "L0A", "a")
    b = kb.tensor(dtype, (k * n,), "L0B", "b")
    c = kb.tensor(out, (m * n,), "L0C", "c")
    kb.mmad(c, a, b, m, k, n, False)
    record = Device("Ascend910").run(kb.build(), [])
    expected = 20 + math.ceil(m / 16) * math.ceil(n / 16) * math.ceil(k / kstep)
    assert abs(record.cost.busy_cycles("M") - expected) <= 0.10 * expected
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


def test_flags_order_pipes_and_independent_pipes_overlap():
    chained, overlapped = _move_then_add(True), _move_then_add(False)
    move = 327 + 32768 / 42
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
    slow = 10 * (6 + 255) + (6 + 10)
    assert abs(cost.total_cycles - slow) <= 0.05 * slow
    assert len(cost.cores) == 4 and cost.critical_core.core == 0
    many = dev.run(_imbalanced_kernel(64), [], block_dim=64).cost   # 64 blocks on 32 cores: two rounds
    assert len(many.cores) == 32
    assert abs(many.busy_cycles("V", core=1) - 2 * (6 + 10)) <= 1


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
    assert abs(one - (327 + nbytes / 42)) <= 2
    share = chip.hbm_bytes_per_cycle / 32
    assert abs(all_cores - (327 + nbytes / share)) <= 2


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
    move_end = 1 + 1 + 327 + 32768 / 42          # sset and issue, then the transfer
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
    one = 327 + 8192 / 42
    assert abs(with_barrier - (2 + 2 * one)) <= 3      # the second move starts after the first completes


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
    move = 327 + 32768 / 42
    assert cost.total_cycles >= move
    assert cost.busy_cycles("S") <= 5
    assert cost.bottleneck_pipe == "MTE2"
