"""Simulator throughput on twelve TBE DSL kernels: cached launches against numpy computing the same result.

    python benchmarks/bench_sim_kernels.py [--repeats 5] [--only NAME[,NAME...]] [--soc Ascend910] [--list]
                                           [--clock wall|cpu]

Each kernel is written as a TBE op file writes it (``te.lang.cce`` compute functions, ``auto_schedule``,
``cce_build_code``) and loaded back from kernel_meta; the build is excluded from the timing.  Its inputs are put
on the simulated device once; a timed call is one launch and synchronize (``Device.launch`` with the JSON's
blockDim), the numpy figure is numpy computing the same result on the same host arrays.  Every repeat times every
kernel's simulator call and numpy call back to back (interleaved, so load from other processes on a shared
machine hits both alike); the best of ``--repeats`` is kept.  Printed per kernel: both times, their ratio and the
ratio's target (every ratio <= 5; softmax and layer_norm aim at <= 3; the 16 M fp16 add <= 1.5; the
(1000000, 2) axis-0 reduce <= 10), and whether the device's result equals numpy's within the kernel's tolerance.
``--clock cpu`` times both sides with the process's CPU time instead of the wall clock (steadier on a machine
other jobs load: time spent waiting for a core is not counted).  Exits 1 when a result is wrong or a target is
missed.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import npusim.compat  # noqa: E402,F401  (serves te / tbe / topi as an op file imports them)

RATIO_LIMIT = 5.0


@dataclass(frozen=True)
class Case:
    """One benchmark kernel: ``build(name, dicts)`` writes it with the DSL; ``inputs(rng)`` makes host arrays;
    ``reference(*inputs)`` is numpy's result; ``target`` the ratio to meet (``aim``: the ratio hoped for)."""

    name: str
    build: Callable
    inputs: Callable
    reference: Callable
    rtol: float
    atol: float
    target: float = RATIO_LIMIT
    aim: float | None = None


def _dsl():
    import te.lang.cce as tbe
    from te import tvm
    return tbe, tvm


def _emit(name: str, inputs: list, res) -> None:
    tbe, tvm = _dsl()
    with tvm.target.cce():
        sch = tbe.auto_schedule(res)
    tbe.cce_build_code(sch, {"name": name, "tensor_list": [*inputs, res]})


def _placeholders(shapes_dtypes) -> list:
    _, tvm = _dsl()
    return [tvm.placeholder(shape, name=f"x{i}", dtype=dtype) for i, (shape, dtype) in enumerate(shapes_dtypes)]


def build_add(name: str) -> None:
    tbe, _ = _dsl()
    a, b = _placeholders([((1 << 24,), "float16"), ((1 << 24,), "float16")])
    _emit(name, [a, b], tbe.vadd(a, b))


def build_exp_chain(name: str) -> None:
    tbe, _ = _dsl()
    (x,) = _placeholders([((1 << 22,), "float32")])
    res = tbe.vadds(tbe.vmuls(tbe.vexp(x), 0.5), 1.0)
    _emit(name, [x], res)


def build_cast(name: str) -> None:
    tbe, _ = _dsl()
    (x,) = _placeholders([((1 << 22,), "float16")])
    _emit(name, [x], tbe.cast_to(x, "float32"))


def build_broadcast_add(name: str) -> None:
    tbe, _ = _dsl()
    x, row = _placeholders([((4096, 1024), "float32"), ((1, 1024), "float32")])
    _emit(name, [x, row], tbe.vadd(x, tbe.broadcast(row, (4096, 1024))))


def _build_reduce(shape, axis):
    def build(name: str) -> None:
        tbe, _ = _dsl()
        (x,) = _placeholders([(shape, "float32")])
        _emit(name, [x], tbe.sum(x, axis=axis))
    return build


def _build_softmax(shape, dtype):
    """SoftmaxV2's compute: float32 when the input is float16 and the chip's vexp takes float32."""
    def build(name: str) -> None:
        tbe, _ = _dsl()
        from te import platform as tbe_platform
        (x,) = _placeholders([(shape, dtype)])
        data = x
        if dtype == "float16" and tbe_platform.cce_conf.api_check_support("te.lang.cce.vexp", "float32"):
            data = tbe.cast_to(data, "float32")
        peak = tbe.broadcast(tbe.reduce_max(data, axis=-1, keepdims=True), shape)
        exps = tbe.vexp(tbe.vsub(data, peak))
        total = tbe.broadcast(tbe.sum(exps, axis=-1, keepdims=True), shape)
        _emit(name, [x], tbe.cast_to(tbe.vdiv(exps, total), dtype))
    return build


def build_layer_norm(name: str) -> None:
    """LayerNorm's compute over the last axis: mean, variance, (x - mean) * rsqrt(var + eps) * gamma + beta."""
    tbe, _ = _dsl()
    shape = (4096, 1024)
    x, gamma, beta = _placeholders([(shape, "float32"), ((1024,), "float32"), ((1024,), "float32")])
    scale = 1.0 / shape[-1]
    mean = tbe.broadcast(tbe.vmuls(tbe.sum(x, axis=-1, keepdims=True), scale), shape)
    centred = tbe.vsub(x, mean)
    var = tbe.vmuls(tbe.sum(tbe.vmul(centred, centred), axis=-1, keepdims=True), scale)
    rstd = tbe.broadcast(tbe.vrsqrt(tbe.vadds(var, 1e-5)), shape)
    normed = tbe.vmul(centred, rstd)
    res = tbe.vadd(tbe.vmul(normed, tbe.broadcast(gamma, shape)), tbe.broadcast(beta, shape))
    _emit(name, [x, gamma, beta], res)


def _normal(*shapes_dtypes):
    return lambda rng: [rng.standard_normal(shape).astype(dtype) for shape, dtype in shapes_dtypes]


def _softmax_np(x):
    data = x.astype(np.float32)
    exps = np.exp(data - data.max(-1, keepdims=True))
    return (exps / exps.sum(-1, keepdims=True)).astype(x.dtype)


def _layer_norm_np(x, gamma, beta):
    mean = x.mean(-1, keepdims=True)
    centred = x - mean
    var = (centred * centred).mean(-1, keepdims=True)
    return centred / np.sqrt(var + np.float32(1e-5)) * gamma + beta


def _exp_chain_np(x):
    return np.exp(x) * np.float32(0.5) + np.float32(1.0)


CASES = (
    Case("add_16M_fp16", build_add, _normal(((1 << 24,), "float16"), ((1 << 24,), "float16")),
         lambda a, b: a + b, 0, 0, target=1.5),
    Case("exp_chain_4M_fp32", build_exp_chain, _normal(((1 << 22,), "float32")), _exp_chain_np, 1e-6, 1e-6),
    Case("cast_4M_fp16_fp32", build_cast, _normal(((1 << 22,), "float16")), lambda x: x.astype(np.float32), 0, 0),
    Case("broadcast_add_4096x1024_fp32", build_broadcast_add,
         _normal(((4096, 1024), "float32"), ((1, 1024), "float32")), lambda x, r: x + r, 0, 0),
    Case("reduce_sum_last_4096x1024_fp32", _build_reduce((4096, 1024), -1), _normal(((4096, 1024), "float32")),
         lambda x: x.sum(-1), 1e-4, 1e-3),
    Case("reduce_sum_axis0_4096x1024_fp32", _build_reduce((4096, 1024), 0), _normal(((4096, 1024), "float32")),
         lambda x: x.sum(0), 1e-4, 1e-2),
    Case("reduce_sum_all_4096x1024_fp32", _build_reduce((4096, 1024), None), _normal(((4096, 1024), "float32")),
         lambda x: x.sum().reshape(1), 1e-4, 1e-1),
    Case("softmax_1024x1024_fp32", _build_softmax((1024, 1024), "float32"), _normal(((1024, 1024), "float32")),
         _softmax_np, 1e-5, 1e-7, aim=3.0),
    Case("softmax_1024x1024_fp16", _build_softmax((1024, 1024), "float16"), _normal(((1024, 1024), "float16")),
         _softmax_np, 1e-3, 1e-4, aim=3.0),
    Case("softmax_64x30522_fp32", _build_softmax((64, 30522), "float32"), _normal(((64, 30522), "float32")),
         _softmax_np, 1e-5, 1e-8, aim=3.0),
    Case("layer_norm_4096x1024_fp32", build_layer_norm,
         _normal(((4096, 1024), "float32"), ((1024,), "float32"), ((1024,), "float32")), _layer_norm_np,
         1e-4, 1e-4, aim=3.0),
    Case("reduce_sum_axis0_1000000x2_fp32", _build_reduce((1000000, 2), 0), _normal(((1000000, 2), "float32")),
         lambda x: x.sum(0), 1e-4, 1e-1, target=10.0),
)


class Prepared:
    """A built case with its inputs on the device: ``call()`` is one cached launch + synchronize."""

    def __init__(self, case: Case, device, rng):
        from te_compat.build import load_built
        case.build(case.name)
        self.case, self.device = case, device
        self.built = load_built(case.name)
        self.host = case.inputs(rng)
        self.expected = case.reference(*self.host)
        feed = iter(self.host)
        self.ptrs, self.outputs = [], []
        for spec in self.built.args:
            if spec.output:
                ptr = device.malloc(max(int(np.prod(spec.shape)) * np.dtype(spec.dtype).itemsize, 1))
                self.outputs.append((ptr, spec))
            else:
                ptr = device.to_device(next(feed))
            self.ptrs.append(ptr)

    def call(self) -> None:
        self.device.launch(self.built.kernel, self.ptrs, block_dim=self.built.block_dim)
        self.device.synchronize()

    def reference(self) -> None:
        self.case.reference(*self.host)

    def result_ok(self) -> tuple:
        """(ok, worst absolute error) of the device's output against numpy's."""
        ptr, spec = self.outputs[0]
        got = self.device.from_device(ptr, spec.shape, spec.dtype).astype(np.float64)
        want = np.asarray(self.expected, dtype=np.float64).reshape(got.shape)
        ok = bool(np.allclose(got, want, rtol=self.case.rtol, atol=self.case.atol, equal_nan=False))
        return ok, float(np.max(np.abs(got - want))) if got.size else 0.0


CLOCKS = {"wall": time.perf_counter, "cpu": time.process_time}


def _seconds(func, clock=time.perf_counter) -> float:
    start = clock()
    func()
    return clock() - start


def measure(prepared: list, repeats: int, clock=time.perf_counter) -> dict:
    """{name: (best simulator seconds, best numpy seconds)}, repeats interleaved across kernels."""
    best = {p.case.name: [float("inf"), float("inf")] for p in prepared}
    for p in prepared:     # warm-up: compile the kernel for the chip, fill plan caches and arenas
        p.call()
    for _ in range(repeats):
        for p in prepared:
            row = best[p.case.name]
            row[0] = min(row[0], _seconds(p.call, clock))
            row[1] = min(row[1], _seconds(p.reference, clock))
    return best


def _verdict(ratio: float, case: Case) -> str:
    text = "OK" if ratio <= case.target else "MISSED"
    if case.aim is not None:
        text += f" (aim <= {case.aim:g}: {'met' if ratio <= case.aim else 'not met'})"
    return text


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--only", default="", help="comma-separated kernel names (default: all twelve)")
    parser.add_argument("--soc", default=None, help="chip (default: the runtime's, NPUSIM_SOC or Ascend910)")
    parser.add_argument("--list", action="store_true", help="print the kernel names and exit")
    parser.add_argument("--clock", choices=sorted(CLOCKS), default="wall",
                        help="wall clock (default) or the process's CPU time")
    args = parser.parse_args(argv)
    if args.list:
        print("\n".join(c.name for c in CASES))
        return 0
    chosen = [c for c in CASES if not args.only or c.name in args.only.split(",")]
    if not chosen:
        parser.error(f"--only {args.only!r} names no kernel (see --list)")
    if args.soc:
        os.environ["NPUSIM_SOC"] = args.soc
    from npusim.sim import default_device
    with tempfile.TemporaryDirectory() as meta:
        os.environ["NPUSIM_KERNEL_META"] = meta
        device = default_device()
        rng = np.random.default_rng(0)
        prepared = [Prepared(case, device, rng) for case in chosen]
        best = measure(prepared, args.repeats, CLOCKS[args.clock])
    ok = True
    print(f"chip {device.chip.name}; best of {args.repeats}, interleaved, {args.clock} clock; "
          f"ratio = simulator / numpy")
    print(f"{'kernel':34s} {'blocks':>6s} {'sim ms':>9s} {'numpy ms':>9s} {'ratio':>7s}  target  result")
    for p in prepared:
        sim_s, np_s = best[p.case.name]
        ratio = sim_s / np_s
        good, err = p.result_ok()
        ok &= good and ratio <= p.case.target
        print(f"{p.case.name:34s} {p.built.block_dim:6d} {sim_s * 1e3:9.2f} {np_s * 1e3:9.2f} {ratio:7.2f}  "
              f"<= {p.case.target:<4g} {_verdict(ratio, p.case)}; result {'matches' if good else 'DIFFERS'} "
              f"(max |err| {err:.2e})")
    print("all targets met" if ok else "targets NOT met")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
