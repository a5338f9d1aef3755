"""Custom op call overhead: pyfunc and aot next to numpy's a+b, measured in the same run.

Prints µs per call at 4, 1M and 16M float32 elements and the aot/numpy wall-time ratio at 16M elements.
Targets (issue 2): ≤ 15 µs per call at 4 elements; aot within 1.2× of numpy at 16M elements.
Only figures measured by this run are printed: with ``--mindspore-python PATH`` (or $NPUSIM_BENCH_MINDSPORE_PYTHON)
naming an interpreter that imports MindSpore, MindSpore's own pyfunc and aot calls are measured there, the same way,
and printed side by side (see benchmarks/mindspore_reference.py).
Run: python benchmarks/bench_custom_overhead.py [--quick] [--mindspore-python PATH]
"""
import argparse
import os
import sys
import timeit

import numpy as np

import npusim.compat  # noqa: F401
import mindspore.ops as ops
from mindspore import Tensor, context

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import mindspore_reference  # noqa: E402  (benchmarks/mindspore_reference.py)

AOT_SOURCE = os.path.join(os.path.dirname(HERE), "examples", "aot_add.cc")


def per_call_us(fn, number):
    """Best of 5 repeats, in µs per call."""
    return min(timeit.repeat(fn, number=number, repeat=5)) / number * 1e6


def make_ops():
    pyfunc = ops.Custom(lambda a, b: a + b, out_shape=lambda x, _: x, out_dtype=lambda x, _: x,
                        func_type="pyfunc")
    aot = ops.Custom(AOT_SOURCE + ":CustomAdd", out_shape=lambda x, _: x, out_dtype=lambda x, _: x, func_type="aot")
    return pyfunc, aot


def row(n, pyfunc, aot, number):
    a = np.random.rand(n).astype(np.float32)
    b = np.random.rand(n).astype(np.float32)
    ta, tb = Tensor(a), Tensor(b)
    np.testing.assert_array_equal(aot(ta, tb).asnumpy(), a + b)
    np.testing.assert_array_equal(pyfunc(ta, tb).asnumpy(), a + b)
    base = per_call_us(lambda: a + b, number)
    py = per_call_us(lambda: pyfunc(ta, tb), number)
    ao = per_call_us(lambda: aot(ta, tb), number)
    return base, py, ao


def mindspore_figures(python, sizes):
    """MindSpore's figures measured in ``python`` (None without one); prints why if they cannot be measured."""
    if not python:
        print(mindspore_reference.not_measured_line())
        return None
    try:
        return mindspore_reference.measure(python, AOT_SOURCE, [n for n, _ in sizes], [k for _, k in sizes], repeat=5)
    except mindspore_reference.MindSporeRunError as exc:
        print(f"MindSpore: not measured: {exc}")
        return None


def print_table(results, reference):
    head = f"{'elements':>10} {'numpy a+b µs':>13} {'pyfunc µs':>10} {'aot µs':>9} {'pyfunc/np':>10} {'aot/np':>8}"
    print(head + (f" {'MS pyfunc µs':>13} {'MS aot µs':>10}" if reference else ""))
    for n, (base, py, ao) in results.items():
        line = f"{n:>10} {base:>13.2f} {py:>10.2f} {ao:>9.2f} {py / base:>10.2f} {ao / base:>8.2f}"
        if reference:
            line += f" {reference.us_per_call[('pyfunc', n)]:>13.2f} {reference.us_per_call[('aot', n)]:>10.2f}"
        print(line)
    if reference:
        print(f"(MS = {reference.label()}, measured by this run in {reference.python})")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="fewer iterations (smoke run)")
    mindspore_reference.add_option(parser)
    args = parser.parse_args()
    context.set_context(device_target="CPU")
    pyfunc, aot = make_ops()
    scale = 10 if args.quick else 1
    sizes = ((4, 20000 // scale), (1 << 20, 200 // scale), (16 << 20, max(20 // scale, 3)))
    results = {n: row(n, pyfunc, aot, number) for n, number in sizes}
    reference = mindspore_figures(args.mindspore_python, sizes)
    print_table(results, reference)
    small = results[4]
    big = results[16 << 20]
    compared = (f"; {reference.name()}: pyfunc {reference.us_per_call[('pyfunc', 4)]:.1f} µs, aot "
                f"{reference.us_per_call[('aot', 4)]:.1f} µs" if reference else "")
    print(f"\nat 4 elements: pyfunc {small[1]:.1f} µs, aot {small[2]:.1f} µs per call (target ≤ 15 µs{compared})")
    print(f"at 16M elements: aot / numpy = {big[2] / big[0]:.2f}x (target ≤ 1.2x)")
    ok = small[1] <= 15 and small[2] <= 15 and big[2] / big[0] <= 1.2
    print("targets met" if ok else "targets NOT met")
    return 1 if args.mindspore_python and reference is None else 0


if __name__ == "__main__":
    sys.exit(main())
