"""CustomOpBuilder: per-call cost of a C++ extension op next to a pyfunc Custom op and numpy, and build times.

The op is the seed document's kind (benchmarks/custom_op_builder_mul.cpp: ``ms_extension.h``, ``Function<T>``,
``CustomLaunchAclnn("aclnnMul")`` on the simulated Ascend device).  Prints, all measured by this run:
  * µs per call at 4 float32 elements: numpy ``a * b``, a pyfunc ``ops.Custom`` mul, the CustomOpBuilder mul,
    and their ratios (aim, issue 12: CustomOpBuilder within 3x of the pyfunc call), and how much of the
    CustomOpBuilder call is the simulated aclnnMul kernel (aclnn called directly) and how much the C++ op;
  * cold build (empty build directory) and first load, warm build (nothing changed: ninja has no work) and a warm
    build + load in a fresh interpreter (timed inside it, interpreter start-up excluded).
Run: python benchmarks/bench_custom_op_builder.py [--quick] [--elements N]
"""
import argparse
import os
import subprocess
import sys
import tempfile
import textwrap
import time
import timeit

import numpy as np

import npusim.compat  # noqa: F401
import mindspore as ms
import mindspore.ops as ops
from mindspore import Tensor
from npusim.aclnn import AclTensor, call as aclnn_call
from npusim.sim.runtime import current_runtime

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
SOURCE = os.path.join(HERE, "custom_op_builder_mul.cpp")
NAME = "bench_cob_mul"

WARM_CHILD = textwrap.dedent("""
    import sys, time
    start = time.perf_counter()
    from npusim.extension import CustomOpBuilder
    imported = time.perf_counter()
    builder = CustomOpBuilder(sys.argv[1], [sys.argv[2]], backend="Ascend", build_dir=sys.argv[3])
    path = builder.build()
    built = time.perf_counter()
    module = builder.load()
    loaded = time.perf_counter()
    assert "no work to do" in builder.build_log, builder.build_log
    print((imported - start) * 1e3, (built - imported) * 1e3, (loaded - built) * 1e3)
""")


def per_call_us(fn, seconds):
    """Best of 5 repeats of about ``seconds`` each, in µs per call."""
    timer = timeit.Timer(fn)
    number, taken = timer.autorange()
    number = max(1, int(number * seconds / max(taken, 1e-9)))
    return min(timer.repeat(number=number, repeat=5)) / number * 1e6


def timed_ms(fn):
    start = time.perf_counter()
    value = fn()
    return (time.perf_counter() - start) * 1e3, value


def build_times(build_dir):
    """(cold build ms, first load ms, warm build ms, module) with ``build_dir`` empty at the start."""
    from npusim.extension import CustomOpBuilder

    def builder():
        return CustomOpBuilder(NAME, [SOURCE], backend="Ascend", build_dir=build_dir)

    cold = builder()
    cold_ms, _ = timed_ms(cold.build)
    load_ms, module = timed_ms(cold.load)
    warm = builder()
    warm_ms, _ = timed_ms(warm.build)
    assert "no work to do" in warm.build_log, warm.build_log
    return cold_ms, load_ms, warm_ms, module


def warm_fresh_process(build_dir):
    """(import ms, build ms, load ms) of a warm build + load in a fresh interpreter."""
    env = dict(os.environ, PYTHONPATH=REPO + os.pathsep + os.environ.get("PYTHONPATH", ""))
    done = subprocess.run([sys.executable, "-c", WARM_CHILD, NAME, SOURCE, build_dir], env=env,
                          capture_output=True, text=True, check=True)
    return [float(x) for x in done.stdout.split()]


def call_costs(module, n, seconds):
    """µs per call of numpy a*b, the pyfunc mul, the CustomOpBuilder mul, and aclnnMul called directly from
    Python on the simulated device (the kernel the C++ op launches, without the C++ op around it)."""
    a = np.random.rand(n).astype(np.float32)
    b = np.random.rand(n).astype(np.float32)
    ta, tb = Tensor(a), Tensor(b)
    pyfunc = ops.Custom(lambda x, y: x * y, out_shape=lambda x, _: x, out_dtype=lambda x, _: x, func_type="pyfunc")
    np.testing.assert_allclose(module.mul(ta, tb).asnumpy(), a * b, rtol=1e-6)
    np.testing.assert_allclose(pyfunc(ta, tb).asnumpy(), a * b, rtol=1e-6)
    out = np.empty_like(a)
    aclnn_args, runtime = [AclTensor(a), AclTensor(b), AclTensor(out)], current_runtime()
    aclnn_call("aclnnMul", aclnn_args, runtime)
    np.testing.assert_allclose(out, a * b, rtol=1e-6)
    return (per_call_us(lambda: a * b, seconds), per_call_us(lambda: pyfunc(ta, tb), seconds),
            per_call_us(lambda: module.mul(ta, tb), seconds),
            per_call_us(lambda: aclnn_call("aclnnMul", aclnn_args, runtime), seconds))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="fewer iterations (smoke run)")
    parser.add_argument("--elements", type=int, default=4, help="float32 elements per tensor (default 4)")
    args = parser.parse_args()
    ms.set_context(device_target="Ascend")
    with tempfile.TemporaryDirectory(prefix="npusim_bench_cob_") as build_dir:
        cold_ms, load_ms, warm_ms, module = build_times(build_dir)
        child_import_ms, child_build_ms, child_load_ms = warm_fresh_process(build_dir)
        numpy_us, pyfunc_us, builder_us, aclnn_us = call_costs(module, args.elements, 0.05 if args.quick else 0.3)
    print(f"CustomOpBuilder mul vs pyfunc Custom mul vs numpy, {args.elements} float32 elements "
          f"(device_target Ascend)")
    print(f"{'numpy a*b µs':>13} {'pyfunc µs':>10} {'builder µs':>11} {'builder/pyfunc':>15} {'builder/numpy':>14}")
    print(f"{numpy_us:>13.2f} {pyfunc_us:>10.2f} {builder_us:>11.2f} {builder_us / pyfunc_us:>15.2f} "
          f"{builder_us / numpy_us:>14.1f}")
    aim = "met" if builder_us <= 3 * pyfunc_us else "NOT met"
    print(f"aim: CustomOpBuilder call within 3x of the pyfunc call: {aim} ({builder_us / pyfunc_us:.2f}x)")
    print(f"of which: aclnnMul on the simulated device, called directly from Python: {aclnn_us:.2f} µs "
          f"({aclnn_us / builder_us:.0%} of the builder call); the C++ op around it: {builder_us - aclnn_us:.2f} µs "
          f"({(builder_us - aclnn_us) / pyfunc_us:.2f}x the pyfunc call)")
    print(f"build: cold {cold_ms:.0f} ms (empty build dir), first load {load_ms:.1f} ms (a no-op ninja run + import), "
          f"warm build {warm_ms:.1f} ms (nothing changed)")
    print(f"fresh interpreter, warm: build {child_build_ms:.1f} ms + load {child_load_ms:.1f} ms "
          f"(after {child_import_ms:.0f} ms importing npusim.extension); cold/warm build ratio "
          f"{cold_ms / warm_ms:.0f}x")


if __name__ == "__main__":
    main()
