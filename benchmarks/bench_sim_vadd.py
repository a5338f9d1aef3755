"""Benchmark: a hand-built multi-core, double-buffered float16 vadd over 16 M elements on the simulated device,
and the TBE DSL add of the same size.

Prints, from one run: the simulator's wall time for the hand-built launch against numpy's ``a + b`` on the same
arrays (target: at most 2x), and the cycle model's estimate against the chip's bandwidth bound, bytes moved / HBM
bandwidth (target: within 15 %, issue 13); then the same add written in TBE DSL (``te.lang.cce.vadd``,
``auto_schedule``) for the chip: its block count, its estimate against the same bound (target: within 15 %) and its
wall time.  ``--soc all`` runs every chip model in turn.  Exits 1 when a result is not bit-exact or a target is
missed.

    python benchmarks/bench_sim_vadd.py [--soc Ascend910 | --soc all] [--elements 16777216]
"""
from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from npusim.sim import Device, KernelBuilder, chip_names, get_chip

BOUND_TOLERANCE = 0.15   # the cycle estimate within 15 % of the HBM bandwidth bound (issue 13)
MAX_TILE = 32768      # float16 elements per UB buffer (64 KiB): 4 buffers fill a 256 KiB UB
LANES = 128           # float16 lanes per repeat


def plan_launch(chip, num_elements: int) -> tuple:
    """(tile, block_dim): the largest power-of-two tile whose 4 buffers fit UB, and the most blocks (at most the
    chip's vector cores) that give every block an even number of whole tiles."""
    tile = MAX_TILE
    while 4 * tile * 2 > chip.ub_bytes:
        tile //= 2
    tiles = num_elements // tile
    if tiles * tile != num_elements:
        raise ValueError(f"{num_elements} elements is not a multiple of the {tile}-element tile")
    block_dim = max(d for d in range(1, chip.vector_core_num + 1) if tiles % (2 * d) == 0)
    return tile, block_dim


def build_vadd(num_elements: int, block_dim: int, tile: int):
    """z = x + y: each block adds a contiguous slice, two UB buffer pairs alternate (ping-pong)."""
    per_block = num_elements // block_dim
    tiles = per_block // tile
    if per_block * block_dim != num_elements or tiles * tile != per_block or tiles % 2:
        raise ValueError("elements must split into block_dim blocks of an even number of tiles")
    burst = tile * 2 // 32
    kb = KernelBuilder("vadd_fp16_db", block_dim=block_dim)
    x = kb.tensor("float16", (num_elements,), "GM", "x")
    y = kb.tensor("float16", (num_elements,), "GM", "y")
    z = kb.tensor("float16", (num_elements,), "GM", "z")
    a = [kb.tensor("float16", (tile,), "UB", f"a{p}") for p in (0, 1)]
    b = [kb.tensor("float16", (tile,), "UB", f"b{p}") for p in (0, 1)]
    base = kb.block_idx * per_block
    for p in (0, 1):
        kb.set_flag("MTE3", "MTE2", p)         # both buffer pairs start free
    with kb.for_range(0, tiles // 2, name="j") as j:
        for p in (0, 1):
            off = base + (j * 2 + p) * tile
            kb.wait_flag("MTE3", "MTE2", p)     # buffer pair p stored out: reuse it
            kb.data_move(a[p], x[off], 0, 1, burst, 0, 0)
            kb.data_move(b[p], y[off], 0, 1, burst, 0, 0)
            kb.set_flag("MTE2", "V", p)
            kb.wait_flag("MTE2", "V", p)
            for half in (0, 1):
                h = half * (tile // 2)
                kb.vadd(LANES, a[p][h], a[p][h], b[p][h], tile // LANES // 2, 1, 1, 1, 8, 8, 8)
            kb.set_flag("V", "MTE3", p)
            kb.wait_flag("V", "MTE3", p)
            kb.data_move(z[off], a[p], 0, 1, burst, 0, 0)
            kb.set_flag("MTE3", "MTE2", p)
    for p in (0, 1):
        kb.wait_flag("MTE3", "MTE2", p)
    return kb.build(inputs=[x, y], outputs=[z])


def run_chip(soc: str, elements: int) -> bool:
    """Build, run and report the vadd on chip ``soc``; True when every target is met."""
    chip = get_chip(soc)
    from npusim.sim import set_chip
    set_chip(chip.name)
    try:
        tile, block_dim = plan_launch(chip, elements)
        kernel = build_vadd(elements, block_dim, tile)
    finally:
        set_chip(None)
    rng = np.random.default_rng(0)
    a = rng.standard_normal(elements).astype(np.float16)
    b = rng.standard_normal(elements).astype(np.float16)
    device = Device(chip)
    px, py, pz = device.to_device(a), device.to_device(b), device.malloc(a.nbytes)

    t0 = time.perf_counter()
    record = device.run(kernel, [px, py, pz])
    sim_seconds = time.perf_counter() - t0
    t0 = time.perf_counter()
    expected = a + b
    numpy_seconds = time.perf_counter() - t0
    t0 = time.perf_counter()
    cost = record.cost
    cost_seconds = time.perf_counter() - t0

    out = device.from_device(pz, a.shape, np.float16)
    exact = np.array_equal(out.view(np.uint16), expected.view(np.uint16))
    moved = 3 * a.nbytes
    bound_cycles = moved / chip.hbm_bytes_per_cycle
    ratio = sim_seconds / numpy_seconds
    error = cost.total_cycles / bound_cycles - 1
    print(f"chip {chip.name}: {block_dim} blocks x {elements // block_dim} fp16 elements, "
          f"{record.trace.instruction_count} instructions executed; result bit-exact: {exact}")
    print(f"wall time: simulator {sim_seconds * 1e3:.1f} ms vs numpy a+b {numpy_seconds * 1e3:.1f} ms "
          f"-> ratio {ratio:.2f} (target <= 2.00) {'OK' if ratio <= 2 else 'MISSED'}")
    print(f"cycle estimate: {cost.total_cycles:.0f} cycles = {cost.time_us:.1f} us; bandwidth bound "
          f"{moved / 2**20:.0f} MiB / {chip.hbm_gbps:g} GB/s = {bound_cycles:.0f} cycles "
          f"-> {100 * error:+.1f}% (target within {100 * BOUND_TOLERANCE:.0f}%) "
          f"{'OK' if abs(error) <= BOUND_TOLERANCE else 'MISSED'}")
    print(f"(cycle model evaluation took {cost_seconds * 1e3:.1f} ms; busiest pipe {cost.bottleneck_pipe})")
    dsl_ok = run_tbe_add(chip, device, (px, py, pz), a, b, expected)
    return exact and ratio <= 2 and abs(error) <= BOUND_TOLERANCE and dsl_ok


def build_tbe_add(chip, num_elements: int):
    """The same add as a TBE op file writes it (te.lang.cce.vadd + auto_schedule), lowered for ``chip``."""
    import npusim.compat  # noqa: F401  (serves te / tbe as an op file imports them)
    import te.lang.cce as tbe
    from te import tvm
    from npusim.sim import use_target
    with use_target(chip.name):
        x = tvm.placeholder((num_elements,), name="x", dtype="float16")
        y = tvm.placeholder((num_elements,), name="y", dtype="float16")
        res = tbe.vadd(x, y)
        return tbe.auto_schedule(res).lower([x, y, res], "tbe_add_fp16")


def run_tbe_add(chip, device, pointers: tuple, a, b, expected) -> bool:
    """Run the TBE DSL add on the hand-built kernel's device buffers; True when bit-exact and within the bound."""
    kernel = build_tbe_add(chip, a.size)
    px, py, pz = pointers
    device.memset(pz, 0, a.nbytes)       # the hand-built kernel wrote the same sums here
    t0 = time.perf_counter()
    record = device.run(kernel, [px, py, pz])
    sim_seconds = time.perf_counter() - t0
    out = device.from_device(pz, a.shape, np.float16)
    exact = np.array_equal(out.view(np.uint16), expected.view(np.uint16))
    bound_cycles = 3 * a.nbytes / chip.hbm_bytes_per_cycle
    error = record.cost.total_cycles / bound_cycles - 1
    print(f"TBE DSL add (te.lang.cce.vadd, auto_schedule): {record.block_dim} blocks, "
          f"{record.trace.instruction_count} instructions executed; result bit-exact: {exact}; wall time "
          f"{sim_seconds * 1e3:.1f} ms")
    print(f"  cycle estimate: {record.cost.total_cycles:.0f} cycles = {record.cost.time_us:.1f} us vs bandwidth bound "
          f"{bound_cycles:.0f} cycles -> {100 * error:+.1f}% (target within {100 * BOUND_TOLERANCE:.0f}%) "
          f"{'OK' if abs(error) <= BOUND_TOLERANCE else 'MISSED'}; busiest pipe {record.cost.bottleneck_pipe}")
    return exact and abs(error) <= BOUND_TOLERANCE


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--soc", default="Ascend910", help="a chip model, or 'all' for every one")
    parser.add_argument("--elements", type=int, default=16 * 1024 * 1024)
    args = parser.parse_args(argv)
    socs = chip_names() if args.soc == "all" else [args.soc]
    results = [run_chip(soc, args.elements) for soc in socs]
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
