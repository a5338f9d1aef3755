"""A 1024x1024x1024 float16 matmul on the cube (issue 15): the cycle estimate against the chip's cube roofline,
and the simulator's wall time against numpy.matmul in the same run.

    python benchmarks/bench_cube_matmul.py [--chip Ascend910] [--size 1024] [--repeats 3]

The op is built as MindSpore feeds a MatMul: A and B^T in FRACTAL_NZ (the cube's native layouts, read in place),
a FRACTAL_NZ float16 output, so the kernel is the cube schedule alone (no layout conversion).  Prints the kernel's
cycles, its busiest pipe and per-pipe utilisation, the roofline (flops / the chip's peak float16 rate, all cores)
and the ratio; then the best-of-R wall time of one simulated launch next to numpy.matmul of the same float32 data
(the repeats alternate, so load from other processes hits both alike).
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def build(size: int):
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chip", default="Ascend910")
    parser.add_argument("--size", type=int, default=1024)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    from npusim.sim import get_chip, profile, set_chip
    set_chip(args.chip)
    size = args.size
    kernel, sch = build(size)
    rng = np.random.default_rng(0)
    frac = size // 16
    a = rng.standard_normal((frac, frac, 16, 16)).astype(np.float16)
    b = rng.standard_normal((frac, frac, 16, 16)).astype(np.float16)
    dense = rng.standard_normal((size, size)).astype(np.float32)
    sim_s, np_s = [], []
    for _ in range(args.repeats):
        start = time.perf_counter()
        with profile() as prof:
            kernel.run(a, b)
        sim_s.append(time.perf_counter() - start)
        start = time.perf_counter()
        np.matmul(dense, dense)
        np_s.append(time.perf_counter() - start)
    row = prof.rows()[-1]
    chip = get_chip(args.chip)
    roofline_us = 2 * size ** 3 / (chip.peak_fp16_tflops * 1e12) * 1e6
    print(f"{args.chip}: {size}^3 float16 matmul, tiling {sch.tiling}")
    print(f"  estimate {row['cycles']:.0f} cycles = {row['time_us']:.2f} us; cube roofline {roofline_us:.2f} us "
          f"(x{row['time_us'] / roofline_us:.2f}); busiest pipe {row['busiest_pipe']}")
    print("  utilisation " + ", ".join(f"{p} {u * 100:.0f}%" for p, u in row["utilisation"].items()))
    print(f"  wall: simulator {min(sim_s) * 1e3:.0f} ms, numpy.matmul (float32) {min(np_s) * 1e3:.0f} ms "
          f"(x{min(sim_s) / min(np_s):.1f})")


if __name__ == "__main__":
    main()
