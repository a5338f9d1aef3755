"""Call overhead of an AICPU Custom op on a 4-element tensor, next to pyfunc, in the same run.

    python benchmarks/bench_aicpu_overhead.py [--calls N] [--repeats R] [--mindspore-python PATH]

Prints microseconds per call (best of R repeats of N calls; the rows' repeats are interleaved, so load from
other processes on a shared machine hits every row alike) for:
  - ops.Custom(func_type="aicpu"): the full front end + AicpuBackend + worker round trip (Add from npusim's default
    library, selected with cust_aicpu="mindspore_aicpu_kernels"),
  - ops.Custom(func_type="pyfunc") doing the same add in Python,
  - AicpuBackend.launch alone, and the worker round trip alone (AicpuWorker.run of a prepared plan),
and compares the Custom aicpu overhead with the target (<= 50 us).  Only figures measured by this run are printed:
with ``--mindspore-python PATH`` (or $NPUSIM_BENCH_MINDSPORE_PYTHON) naming an interpreter that imports MindSpore,
MindSpore's own pyfunc and aot calls of the same add (aot: examples/aot_add.cc) are measured there, best of R
batches of N calls, and printed side by side (see benchmarks/mindspore_reference.py).
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))
import mindspore_reference  # noqa: E402  (benchmarks/mindspore_reference.py)

AOT_SOURCE = Path(__file__).resolve().parents[1] / "examples" / "aot_add.cc"

TARGET_US = 50.0


def _us_per_call(fn, calls: int) -> float:
    start = time.perf_counter()
    for _ in range(calls):
        fn()
    return (time.perf_counter() - start) / calls * 1e6


def _best_us_per_call(rows, calls: int, repeats: int) -> dict:
    """{name: best µs per call}; every row is warmed up (builds, worker start, plan caches) before any is timed,
    then each repeat times every row once."""
    for _, fn in rows:
        fn()
    best = {name: float("inf") for name, _ in rows}
    for _ in range(repeats):
        for name, fn in rows:
            best[name] = min(best[name], _us_per_call(fn, calls))
    return best


def _custom_ops():
    import npusim.compat  # noqa: F401  (serves `mindspore`)
    from mindspore import Tensor, ops
    from mindspore.ops import CustomRegOp, DataType, custom_info_register

    add_info = CustomRegOp("Add").input(0, "x1").input(1, "x2").output(0, "y") \
        .attr("cust_aicpu", "required", "str", "mindspore_aicpu_kernels") \
        .dtype_format(DataType.F32_Default, DataType.F32_Default, DataType.F32_Default) \
        .target("Ascend").get_op_info()

    @custom_info_register(add_info)
    def add_aicpu():
        """Add on the simulated AI CPU."""

    aicpu = ops.Custom(add_aicpu, out_shape=lambda a, b: a, out_dtype=lambda a, b: a, func_type="aicpu")
    pyfunc = ops.Custom(lambda a, b: a + b, out_shape=lambda a, b: a, out_dtype=lambda a, b: a,
                        func_type="pyfunc")
    x = Tensor(np.arange(4, dtype=np.float32))
    y = Tensor(np.ones(4, dtype=np.float32))
    expected = np.arange(4, dtype=np.float32) + 1
    np.testing.assert_array_equal(aicpu(x, y).asnumpy(), expected)
    np.testing.assert_array_equal(pyfunc(x, y).asnumpy(), expected)
    return (lambda: aicpu(x, y)), (lambda: pyfunc(x, y)), aicpu.backend


def _lower_layers(backend):
    from aicpu_loader import lookup
    from aicpu_loader.plan import OutputSpec, plan_call
    from aicpu_loader.worker import default_worker
    from npusim.custom.backends.base import CallAttrs

    a = np.arange(4, dtype=np.float32)
    b = np.ones(4, dtype=np.float32)
    attrs = CallAttrs(("cust_aicpu",), ("mindspore_aicpu_kernels",))
    library = str(lookup.find_library("mindspore_aicpu_kernels"))
    plan = plan_call(library, "Add", [(a.shape, a.dtype), (b.shape, b.dtype)], [OutputSpec("float32", (4,), 16)])
    worker = default_worker()
    return (lambda: backend.launch([a, b], attrs, [(4,)], ["float32"])), (lambda: worker.run(plan, [a, b]))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=5)
    mindspore_reference.add_option(parser)
    args = parser.parse_args(argv)
    custom_aicpu, custom_pyfunc, backend = _custom_ops()
    backend_launch, worker_call = _lower_layers(backend)
    rows = [
        ("ops.Custom aicpu (Add, 4 x float32)", custom_aicpu),
        ("ops.Custom pyfunc (same add)", custom_pyfunc),
        ("AicpuBackend.launch alone", backend_launch),
        ("AicpuWorker.run, planned (IPC round trip)", worker_call),
    ]
    results = _best_us_per_call(rows, args.calls, args.repeats)
    pin = os.environ.get("NPUSIM_AICPU_PIN", "1") != "0"
    print(f"AICPU call overhead, best of {args.repeats} x {args.calls} calls "
          f"(worker pinning: {'on' if pin else 'off'})")
    for name, us in results.items():
        print(f"  {name:<42} {us:8.1f} us/call")
    aicpu_us = results[rows[0][0]]
    pyfunc_us = results[rows[1][0]]
    print(f"  aicpu - pyfunc (the AI CPU's own cost)    {aicpu_us - pyfunc_us:8.1f} us/call")
    reference = _mindspore_figures(args)
    verdict = "meets" if aicpu_us <= TARGET_US else "misses"
    compared = f" ({reference.name()} aot call: {reference.us_per_call[('aot', 4)]:.1f} us)" if reference else ""
    print(f"Custom aicpu call: {aicpu_us:.1f} us {verdict} the target of <= {TARGET_US:.0f} us{compared}")
    return 1 if args.mindspore_python and reference is None else 0


def _mindspore_figures(args):
    """MindSpore's pyfunc and aot calls on 4 elements, measured in the interpreter given (printed as rows), or
    None with a line saying why."""
    if not args.mindspore_python:
        print(f"  {mindspore_reference.not_measured_line()}")
        return None
    try:
        reference = mindspore_reference.measure(args.mindspore_python, AOT_SOURCE, [4], [args.calls], args.repeats)
    except mindspore_reference.MindSporeRunError as exc:
        print(f"  MindSpore: not measured: {exc}")
        return None
    print(f"  measured in {reference.python}: {reference.label()}")
    for row in mindspore_reference.ROWS:
        print(f"  {'MindSpore ops.Custom ' + row + ' (same add)':<42} {reference.us_per_call[(row, 4)]:8.1f} us/call")
    return reference


if __name__ == "__main__":
    sys.exit(main())
