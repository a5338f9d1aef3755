"""A 1024x1024x1024 float16 matmul on the cube (issue 15): the cycle estimate against the chip's cube roofline,
and the simulator's wall time against numpy.matmul in the same run.  Exits 1 when the estimate is more than 25 %
above the roofline (the issue's target).

    python benchmarks/bench_cube_matmul.py [--chip Ascend910] [--size 1024] [--repeats 3] [--blas-threads 1]

The op is built as MindSpore feeds a MatMul: A and B^T in FRACTAL_NZ (the cube's native layouts, read in place),
a FRACTAL_NZ float16 output, so the kernel is the cube schedule alone (no layout conversion).  Prints the tiling,
the kernel's cycles, its busiest pipe and per-pipe utilisation, the roofline (flops / the chip's peak float16
rate, all cores) and the ratio, and the least HBM traffic any schedule needs on the cores the launch used if every
core read its operands from HBM (the cost model gives each active core 1/cores of the chip's HBM bandwidth; its L2,
npusim/sim/cost/l2.py, serves lines another core already brought in at the core's L2 read rate).  Then the same op
on a copy of the chip whose HBM share never limits (a diagnostic, not the target: with the L2 the estimate is
about that).  Then the best-of-R wall time of one
simulated launch next to numpy.matmul of the same float32 data (the repeats alternate, so load from other
processes hits both alike).  ``--blas-threads`` (default 1) pins the host BLAS threads of both: on a shared,
loaded host, multithreaded BLAS spends most of its time waiting for descheduled threads (0: leave BLAS alone).
"""
from __future__ import annotations

import argparse
import dataclasses
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

TARGET_RATIO = 1.25


def build(size: int):
    """(BuiltKernel, schedule) of the ``size``^3 float16 matmul in FRACTAL_NZ."""
    import npusim.compat  # noqa: F401  (serves te)
    import te.lang.cce as cce
    from te import tvm
    from te_compat.build import BuiltKernel
    from te_compat.build.cce import build_kernel
    frac = size // 16
    a = tvm.placeholder((frac, frac, 16, 16), name="a", dtype="float16")
    b = tvm.placeholder((frac, frac, 16, 16), name="b", dtype="float16")
    res = cce.matmul(a, b, False, True, format_a="FRACTAL_NZ", format_b="FRACTAL_NZ", dst_dtype="float16")
    sch = cce.auto_schedule(res)
    return BuiltKernel.from_result(build_kernel(sch, {"name": f"bench_mm_{size}", "tensor_list": [a, b, res]})), sch


def roofline_us(chip, size: int) -> float:
    """Microseconds of 2 size^3 flops at the chip's peak float16 rate."""
    return 2 * size ** 3 / (chip.peak_fp16_tflops * 1e12) * 1e6


def hbm_floor_us(chip, size: int, block_dim: int) -> float:
    """Microseconds the least HBM traffic of ``block_dim`` cores takes: each core reads the A rows and B columns
    of its share of C (an output block of size^2 / block_dim elements, at best square) and writes its part of C."""
    side = size / block_dim ** 0.5
    per_core = 2 * side * size * 2 + side * side * 2
    return per_core * block_dim / (chip.hbm_gbps * 1e9) * 1e6


def launch(kernel, a, b):
    """(seconds, profile row) of one launch."""
    from npusim.sim import profile
    start = time.perf_counter()
    with profile() as prof:
        kernel.run(a, b)
    return time.perf_counter() - start, prof.rows()[-1]


def unlimited_hbm(chip_name: str, size: int, a, b):
    """(profile row, tiling) of the same op on a copy of the chip whose HBM share never limits a core."""
    from npusim.sim import get_chip
    from npusim.sim.runtime import current_runtime
    from npusim.sim.target import Target
    chip = get_chip(chip_name)
    wide = dataclasses.replace(chip, name=f"{chip.name}-hbm-unlimited", hbm_gbps=chip.hbm_gbps * 1000)
    runtime = current_runtime().with_target(Target.of(wide))
    with runtime.activate():
        kernel, sch = build(size)
        _, row = launch(kernel, a, b)
    return row, sch.tiling


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chip", default="Ascend910")
    parser.add_argument("--size", type=int, default=1024)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--blas-threads", type=int, default=1)
    args = parser.parse_args()
    if args.blas_threads:
        for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
            os.environ[name] = str(args.blas_threads)
    import numpy as np
    from npusim.sim import get_chip, set_chip
    set_chip(args.chip)
    size, frac = args.size, args.size // 16
    kernel, sch = build(size)
    rng = np.random.default_rng(0)
    a = rng.standard_normal((frac, frac, 16, 16)).astype(np.float16)
    b = rng.standard_normal((frac, frac, 16, 16)).astype(np.float16)
    dense = rng.standard_normal((size, size)).astype(np.float32)
    sim_s, np_s = [], []
    for _ in range(args.repeats):
        seconds, row = launch(kernel, a, b)
        sim_s.append(seconds)
        start = time.perf_counter()
        np.matmul(dense, dense)
        np_s.append(time.perf_counter() - start)
    chip = get_chip(args.chip)
    roof = roofline_us(chip, size)
    ratio = row["time_us"] / roof
    print(f"{args.chip}: {size}^3 float16 matmul, tiling {sch.tiling}")
    print(f"  estimate {row['cycles']:.0f} cycles = {row['time_us']:.2f} us; cube roofline {roof:.2f} us "
          f"(x{ratio:.3f}, target x{TARGET_RATIO}); busiest pipe {row['busiest_pipe']}")
    print("  utilisation " + ", ".join(f"{p} {u * 100:.0f}%" for p, u in row["utilisation"].items()))
    for cores in sorted({row["block_dim"], chip.cube_core_num}):
        print(f"  least HBM traffic on {cores} cores: {hbm_floor_us(chip, size, cores):.2f} us "
              f"(x{hbm_floor_us(chip, size, cores) / roof:.2f} the roofline)")
    wide_row, wide_tiling = unlimited_hbm(args.chip, size, a, b)
    print(f"  HBM share not limiting (diagnostic): {wide_row['cycles']:.0f} cycles = {wide_row['time_us']:.2f} us "
          f"(x{wide_row['time_us'] / roof:.2f}); busiest pipe {wide_row['busiest_pipe']}; block_dim "
          f"{wide_tiling.block_dim}")
    threads = args.blas_threads or "default"
    print(f"  wall: simulator {min(sim_s) * 1e3:.0f} ms, numpy.matmul (float32) {min(np_s) * 1e3:.0f} ms "
          f"(x{min(sim_s) / min(np_s):.1f}; BLAS threads {threads})")
    if ratio > TARGET_RATIO:
        print(f"  MISSED: estimate x{ratio:.3f} of the cube roofline > x{TARGET_RATIO}")
        return 1
    print(f"  met: estimate x{ratio:.3f} of the cube roofline <= x{TARGET_RATIO}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
