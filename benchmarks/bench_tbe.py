"""TBE DSL speed: build time of an element-wise op, cache hits, and a simulated fp16 vadd against numpy.

    python benchmarks/bench_tbe.py [--elements N] [--builds K]

Prints, from one run:
* the time to build an element-wise op from scratch (placeholders, te.lang.cce.vadd, auto_schedule,
  cce_build_code writing kernel_meta): target <= 20 ms;
* the time of a Custom tbe op's first call for a new signature (the impl builds, the kernel is published to the
  disk cache and handed to the op);
* the time of a cache hit: a Custom tbe op's signature lookup in memory, and loading a built kernel back from
  kernel_meta on disk (what a new process does): target <= 1 ms;
* the simulated fp16 vadd over N elements (default 16 M) on device-resident data, against numpy a+b on the same
  arrays in the same run: target <= 2x wall time; and its cycle estimate against the chip's bandwidth bound.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import npusim.compat  # noqa: E402,F401  (serves te / tbe / topi / mindspore)


def build_vadd(name: str, n: int, dtype: str = "float16") -> None:
    """An element-wise op exactly as a TBE op file builds it."""
    import te.lang.cce
    from te import tvm
    a = tvm.placeholder((n,), name="a", dtype=dtype)
    b = tvm.placeholder((n,), name="b", dtype=dtype)
    res = te.lang.cce.vadd(a, b)
    with tvm.target.cce():
        sch = te.lang.cce.auto_schedule(res)
    te.lang.cce.cce_build_code(sch, {"name": name, "tensor_list": [a, b, res]})


def median_ms(func, repeats: int) -> float:
    times = []
    for i in range(repeats):
        start = time.perf_counter()
        func(i)
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


def bench_build(builds: int) -> float:
    build_vadd("warm_up", 4096)  # imports TVM and the DSL once, as any real first build would
    return median_ms(lambda i: build_vadd(f"vadd_build_{i}", 4096 + 32 * i), builds)


def bench_cache_hits(builds: int) -> tuple[float, float, float]:
    """(cached Custom call ms, kernel_meta load from disk ms, in-memory hit overhead ms)."""
    from mindspore import Tensor, context, ops
    from mindspore.ops import CustomRegOp, DataType
    from npusim.custom.backends import tbe as tbe_backend
    from npusim.custom.backends.base import CallAttrs
    from te_compat.build import load_built

    def add(a, b, out, kernel_name="add"):
        build_vadd_from_dicts(a, out, kernel_name)

    info = (CustomRegOp().input(0, "a").input(1, "b").output(0, "out")
            .dtype_format(DataType.F16_Default, DataType.F16_Default, DataType.F16_Default)
            .target("Ascend").get_op_info())
    context.set_context(device_target="Ascend")
    op = ops.Custom(add, out_shape=lambda x, _: x, out_dtype=lambda x, _: x, func_type="tbe", reg_info=info)
    arrays = [np.ones(64, np.float16), np.ones(64, np.float16)]
    op(Tensor(arrays[0]), Tensor(arrays[1]))  # builds once
    from npusim.sim import current_runtime
    built = current_runtime().cache(tbe_backend.BUILT_CACHE, tbe_backend.BUILT_ENTRIES).values()[-1]
    call_ms = median_ms(lambda i: op(Tensor(arrays[0]), Tensor(arrays[1])), builds)
    disk_ms = median_ms(lambda i: load_built(built.json_path), builds)
    # the hit itself: the launch with the kernel run replaced by its (precomputed) outputs
    outputs = built.run(*arrays)
    built.run = lambda *_, **__: outputs
    try:
        hit_ms = median_ms(lambda i: op.backend.launch(arrays, CallAttrs(), [(64,)], ["float16"]), builds)
    finally:
        del built.run
    return call_ms, disk_ms, hit_ms


def bench_first_custom_build(builds: int) -> float:
    """Median ms of a Custom tbe op's first call for a new signature (build, publish to the disk cache, run)."""
    from mindspore import Tensor, ops

    def add(a, b, out, kernel_name="add"):
        build_vadd_from_dicts(a, out, kernel_name)

    op = ops.Custom(add, out_shape=lambda x, _: x, out_dtype=lambda x, _: x, func_type="tbe")
    op(Tensor(np.ones(32, np.float16)), Tensor(np.ones(32, np.float16)))  # warm-up: imports, fingerprint

    def first_call(i):
        x = np.ones(4096 + 32 * i, np.float16)
        op(Tensor(x), Tensor(x))
    return median_ms(first_call, builds)


def build_vadd_from_dicts(a: dict, out: dict, kernel_name: str) -> None:
    import te.lang.cce
    from te import tvm
    x = tvm.placeholder(a["shape"], name="x", dtype=a["dtype"])
    y = tvm.placeholder(a["shape"], name="y", dtype=a["dtype"])
    res = te.lang.cce.vadd(x, y)
    with tvm.target.cce():
        sch = te.lang.cce.auto_schedule(res)
    te.lang.cce.cce_build_code(sch, {"name": kernel_name, "tensor_list": [x, y, res]})


def bench_vadd(n: int) -> dict:
    from npusim.sim import default_device, profile
    from te_compat.build import load_built
    build_vadd("vadd_big", n)
    built = load_built("vadd_big")
    rng = np.random.default_rng(0)
    a = rng.standard_normal(n).astype(np.float16)
    b = rng.standard_normal(n).astype(np.float16)
    dev = default_device()
    pa, pb, pout = dev.to_device(a), dev.to_device(b), dev.malloc(a.nbytes)
    best_sim = float("inf")
    record = None
    for _ in range(3):
        with profile() as prof:
            start = time.perf_counter()
            dev.launch(built.kernel, [pa, pb, pout], block_dim=built.block_dim)
            dev.synchronize()
            best_sim = min(best_sim, time.perf_counter() - start)
        record = prof.records[-1]
    exact = bool(np.array_equal(dev.from_device(pout, (n,), "float16"), a + b))
    best_np = min(_timed(lambda: a + b) for _ in range(5))
    chip = record.chip
    bound_cycles = 3 * a.nbytes / chip.hbm_bytes_per_cycle
    return {"sim_ms": best_sim * 1e3, "np_ms": best_np * 1e3, "exact": exact, "cycles": record.cost.total_cycles,
            "bound_cycles": bound_cycles, "us": chip.cycles_to_us(record.cost.total_cycles),
            "block_dim": record.block_dim, "chip": chip.name}


def _timed(func) -> float:
    start = time.perf_counter()
    func()
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--elements", type=int, default=1 << 24)
    parser.add_argument("--builds", type=int, default=20)
    args = parser.parse_args()
    ok = True
    with tempfile.TemporaryDirectory() as meta, tempfile.TemporaryDirectory() as cache:
        os.environ["NPUSIM_KERNEL_META"] = meta
        os.environ["NPUSIM_CACHE_DIR"] = cache
        build_ms = bench_build(args.builds)
        ok &= build_ms <= 20
        print(f"build of an element-wise op (vadd, 4096 fp16): {build_ms:.2f} ms (target <= 20 ms)")
        first_ms = bench_first_custom_build(args.builds)
        print(f"first Custom tbe call of a new signature (vadd, 4096 fp16: build, publish, run): {first_ms:.2f} ms")
        call_ms, disk_ms, memory_ms = bench_cache_hits(args.builds)
        ok &= disk_ms <= 1 and memory_ms <= 1
        print(f"cache hit: in-memory (Custom tbe launch with the kernel run taken out) {memory_ms * 1e3:.1f} us, "
              f"kernel_meta load from disk {disk_ms:.3f} ms (target <= 1 ms); whole cached Custom call on 64 "
              f"elements {call_ms:.3f} ms")
        res = bench_vadd(args.elements)
    ratio = res["sim_ms"] / res["np_ms"]
    over = res["cycles"] / res["bound_cycles"] - 1
    ok &= ratio <= 2 and res["exact"]
    print(f"fp16 vadd over {args.elements} elements on {res['chip']} ({res['block_dim']} blocks): simulator "
          f"{res['sim_ms']:.1f} ms vs numpy a+b {res['np_ms']:.1f} ms -> ratio {ratio:.2f} (target <= 2); "
          f"bit-exact: {res['exact']}")
    print(f"cycle estimate: {res['cycles']:.0f} cycles = {res['us']:.1f} us; bandwidth bound "
          f"{res['bound_cycles']:.0f} cycles -> {over:+.1%}")
    print("targets met" if ok else "targets NOT met")
    return 0


if __name__ == "__main__":
    sys.exit(main())
