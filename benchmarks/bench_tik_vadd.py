"""Benchmark (issue 14): a 16 M-element float16 add written in TIK as TIK op files write it (every AI core takes an
equal share with ``for_range(block_num=...)``, tiles double-buffered with ``thread_num=2``), built with BuildCCE.

Prints, from one run per chip: the simulator's wall time of a cached launch (best of ``--repeats``) against numpy's
``a + b`` on the same arrays, interleaved (aim: at most 2x, as for the DSL), whether the result is bit-exact, and
the cycle estimate against the bandwidth bound (bytes moved / the chip's HBM bytes per cycle).  Exits 1 when a
result is not bit-exact; the ratios are reported, not enforced.

    python benchmarks/bench_tik_vadd.py [--soc Ascend910 | --soc all] [--elements 16777216] [--tile 16384]
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import npusim.compat  # noqa: E402,F401  (serves tbe as an op file imports it)

WALL_AIM = 2.0


def tik_vadd(total: int, tile: int, kernel_name: str):
    """z = x + y over ``total`` fp16 elements: core c adds elements [c * share, (c + 1) * share) in ``tile``-element
    tiles, two tiles in flight (thread_num=2)."""
    from tbe import tik
    ti = tik.Tik()
    core_num = tik.Dprofile().get_aicore_num()
    share = total // core_num
    lanes, per_block = 128, 16
    x = ti.Tensor("float16", (total,), name="x", scope=tik.scope_gm)
    y = ti.Tensor("float16", (total,), name="y", scope=tik.scope_gm)
    z = ti.Tensor("float16", (total,), name="z", scope=tik.scope_gm)
    with ti.for_range(0, core_num, block_num=core_num) as core:
        with ti.for_range(0, share // tile, thread_num=2) as t:
            xu = ti.Tensor("float16", (tile,), name="xu", scope=tik.scope_ubuf)
            yu = ti.Tensor("float16", (tile,), name="yu", scope=tik.scope_ubuf)
            start = core * share + t * tile
            ti.data_move(xu, x[start], 0, 1, tile // per_block, 0, 0)
            ti.data_move(yu, y[start], 0, 1, tile // per_block, 0, 0)
            done = 0
            while done < tile:                      # at most 255 repeats per instruction
                repeats = min(255, (tile - done) // lanes)
                ti.vec_add(lanes, xu[done], xu[done], yu[done], repeats, 8, 8, 8)
                done += repeats * lanes
            ti.data_move(z[start], xu, 0, 1, tile // per_block, 0, 0)
    ti.BuildCCE(kernel_name=kernel_name, inputs=[x, y], outputs=[z])
    return ti


def run_chip(soc: str, elements: int, tile: int, repeats: int) -> bool:
    from tbe.common.platform import set_current_compile_soc_info
    from npusim.sim.runtime import current_runtime
    set_current_compile_soc_info(soc)
    from tbe import tik
    unit = tik.Dprofile().get_aicore_num() * tile
    elements = elements // unit * unit           # every core an equal share of whole tiles (24 cores: 16 M - 4 %)
    ti = tik_vadd(elements, tile, f"tik_vadd_{soc.lower()}")
    built = ti.built
    runtime = current_runtime()
    device, chip = runtime.device, runtime.target.chip
    rng = np.random.default_rng(0)
    a = rng.standard_normal(elements).astype(np.float16)
    b = rng.standard_normal(elements).astype(np.float16)
    px, py, pz = device.to_device(a), device.to_device(b), device.malloc(a.nbytes)

    def launch():
        return device.run(built.kernel, [px, py, pz])

    record = launch()                                   # warm-up: compile for the chip, fill the arenas
    sim_best = numpy_best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        launch()
        sim_best = min(sim_best, time.perf_counter() - start)
        start = time.perf_counter()
        expected = a + b
        numpy_best = min(numpy_best, time.perf_counter() - start)
    out = device.from_device(pz, a.shape, np.float16)
    exact = np.array_equal(out.view(np.uint16), expected.view(np.uint16))
    cost = record.cost
    bound = 3 * a.nbytes / chip.hbm_bytes_per_cycle
    ratio = sim_best / numpy_best
    print(f"chip {chip.name}: {built.kernel.block_dim} blocks x {elements // built.kernel.block_dim} fp16 elements "
          f"in {tile}-element tiles, thread_num=2; result bit-exact: {exact}")
    print(f"  wall: simulator {sim_best * 1e3:.1f} ms vs numpy a+b {numpy_best * 1e3:.1f} ms -> {ratio:.2f}x "
          f"(aim <= {WALL_AIM:g}: {'met' if ratio <= WALL_AIM else 'not met'})")
    print(f"  cycles: estimate {cost.total_cycles:.0f} vs bandwidth bound {bound:.0f} "
          f"({cost.total_cycles / bound:.2f}x); busiest pipe {cost.bottleneck_pipe}")
    return exact


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--soc", default="Ascend910", help="chip, or 'all' (Ascend910, Ascend910B1, Ascend310, "
                                                           "Ascend310P3)")
    parser.add_argument("--elements", type=int, default=1 << 24)
    parser.add_argument("--tile", type=int, default=16384, help="fp16 elements per UB tile (2 tiles x 2 threads)")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    socs = ["Ascend910", "Ascend910B1", "Ascend310", "Ascend310P3"] if args.soc == "all" else [args.soc]
    ok = True
    with tempfile.TemporaryDirectory() as work:
        os.chdir(work)                                  # BuildCCE writes kernel_meta/ here
        for soc in socs:
            ok &= run_chip(soc, args.elements, args.tile, args.repeats)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
