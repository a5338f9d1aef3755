"""TBE DSL pooling (``te.lang.cce.pooling2d``) on the simulator: cached launches against numpy, and the profile.

    python benchmarks/bench_tbe_pooling.py [--repeats 5] [--soc Ascend910] [--shape 1,4,56,56,16]
                                           [--window 3,3] [--stride 2,2] [--padding SAME]

A max and an avg pool of an NC1HWC0 float16 feature map are written as a TBE op file writes them
(``pooling2d``, ``auto_schedule``, ``cce_build_code``) and loaded back from kernel_meta; the build is excluded from
the timing.  A timed call is one launch and synchronize; the numpy figure is numpy computing the same pooling on the
same host array (strided window views of the padded map).  Every repeat times each kernel's simulator call and its
numpy call back to back (interleaved); the best of ``--repeats`` is kept.  Printed per kernel: both wall times,
their ratio, the profile's cycle estimate and busiest pipe, and whether the result matches numpy.  No timing
target: this records figures (the exit status is 1 only when a result differs).
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

import npusim.compat  # noqa: E402,F401  (serves te / tbe / topi as an op file imports them)


def _ints(text: str) -> tuple:
    return tuple(int(v) for v in text.split(","))


def build(name: str, shape: tuple, window: tuple, stride: tuple, mode: str, padding: str) -> None:
    """Write kernel ``name`` into kernel_meta through the DSL."""
    import te.lang.cce as tbe
    from te import tvm
    data = tvm.placeholder(shape, name="tensor_in", dtype="float16")
    res = tbe.pooling2d(data, window, stride, mode, padding)
    with tvm.target.cce():
        sch = tbe.auto_schedule(res)
    tbe.cce_build_code(sch, {"name": name, "tensor_list": [data, res]})


def numpy_pool(x: np.ndarray, window: tuple, stride: tuple, mode: str, padding: str) -> np.ndarray:
    """numpy's pooling of NC1HWC0 ``x`` (TensorFlow's SAME / VALID; avg divides by the taps inside the map)."""
    _, _, h, w, _ = x.shape
    (kh, kw), (sh, sw) = window, stride
    if padding == "SAME":
        ho, wo = -(-h // sh), -(-w // sw)
        top, left = max((ho - 1) * sh + kh - h, 0) // 2, max((wo - 1) * sw + kw - w, 0) // 2
    else:
        ho, wo, top, left = -(-(h - kh + 1) // sh), -(-(w - kw + 1) // sw), 0, 0
    hp, wp = (ho - 1) * sh + kh, (wo - 1) * sw + kw
    fill = -np.inf if mode == "MAX" else 0.0
    padded = np.full((*x.shape[:2], hp, wp, x.shape[4]), fill, np.float32)
    rows, cols = min(h, hp - top), min(w, wp - left)
    padded[:, :, top:top + rows, left:left + cols] = x[:, :, :rows, :cols]
    taps = [padded[:, :, i:i + (ho - 1) * sh + 1:sh, j:j + (wo - 1) * sw + 1:sw] for i in range(kh) for j in range(kw)]
    if mode == "MAX":
        return np.max(taps, axis=0).astype(np.float16)
    ones = np.zeros((hp, wp), np.float32)
    ones[top:top + rows, left:left + cols] = 1.0
    count = sum(ones[i:i + (ho - 1) * sh + 1:sh, j:j + (wo - 1) * sw + 1:sw] for i in range(kh) for j in range(kw))
    return (np.sum(taps, axis=0) / np.maximum(count, 1.0)[:, :, None]).astype(np.float16)


class Prepared:
    """A built pooling kernel with its input on the device: ``call()`` is one cached launch + synchronize."""

    def __init__(self, mode: str, args, device, x: np.ndarray):
        from te_compat.build import load_built
        self.name = f"pool_{mode.lower()}"
        self.mode, self.args, self.device, self.x = mode, args, device, x
        build(self.name, args.shape, args.window, args.stride, mode, args.padding)
        self.built = load_built(self.name)
        self.ptrs, self.out = [], None
        for spec in self.built.args:
            if spec.output:
                ptr = device.malloc(int(np.prod(spec.shape)) * np.dtype(spec.dtype).itemsize)
                self.out = (ptr, spec)
            else:
                ptr = device.to_device(x)
            self.ptrs.append(ptr)

    def call(self) -> None:
        self.device.launch(self.built.kernel, self.ptrs, block_dim=self.built.block_dim)
        self.device.synchronize()

    def reference(self) -> np.ndarray:
        return numpy_pool(self.x, self.args.window, self.args.stride, self.mode, self.args.padding)

    def profile_row(self) -> dict:
        from npusim.sim import profile
        with profile() as prof:
            self.call()
        return prof.rows()[-1]

    def result(self) -> tuple:
        """(matches numpy, worst absolute error)."""
        ptr, spec = self.out
        got = self.device.from_device(ptr, spec.shape, spec.dtype).astype(np.float64)
        want = self.reference().astype(np.float64).reshape(got.shape)
        tol = 0.0 if self.mode == "MAX" else 4e-3
        return bool(np.allclose(got, want, rtol=tol, atol=tol)), float(np.max(np.abs(got - want)))


def _seconds(func) -> float:
    start = time.perf_counter()
    func()
    return time.perf_counter() - start


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--soc", default=None, help="chip (default: the runtime's, NPUSIM_SOC or Ascend910)")
    parser.add_argument("--shape", type=_ints, default=(1, 4, 56, 56, 16))
    parser.add_argument("--window", type=_ints, default=(3, 3))
    parser.add_argument("--stride", type=_ints, default=(2, 2))
    parser.add_argument("--padding", default="SAME", choices=("SAME", "VALID"))
    args = parser.parse_args(argv)
    if args.soc:
        os.environ["NPUSIM_SOC"] = args.soc
    import warnings
    warnings.simplefilter("ignore")     # the scalar-pipe fallback warns at build time; figures are printed below
    from npusim.sim import default_device
    x = np.random.default_rng(0).standard_normal(args.shape).astype(np.float16)
    with tempfile.TemporaryDirectory() as meta:
        os.environ["NPUSIM_KERNEL_META"] = meta
        device = default_device()
        prepared = [Prepared(mode, args, device, x) for mode in ("MAX", "AVG")]
        best = {p.name: [float("inf"), float("inf")] for p in prepared}
        for p in prepared:      # warm-up: compile for the chip, fill caches
            p.call()
        for _ in range(args.repeats):
            for p in prepared:
                best[p.name][0] = min(best[p.name][0], _seconds(p.call))
                best[p.name][1] = min(best[p.name][1], _seconds(p.reference))
        rows = {p.name: p.profile_row() for p in prepared}
    print(f"chip {device.chip.name}; pooling2d {args.shape} float16 window {args.window} stride {args.stride} "
          f"{args.padding}; best of {args.repeats}, interleaved, wall clock")
    print(f"{'kernel':10s} {'blocks':>6s} {'sim ms':>9s} {'numpy ms':>9s} {'ratio':>7s} {'cycles':>10s} "
          f"{'est us':>8s}  busiest  result")
    ok = True
    for p in prepared:
        sim_s, np_s = best[p.name]
        row = rows[p.name]
        good, err = p.result()
        ok &= good
        print(f"{p.name:10s} {p.built.block_dim:6d} {sim_s * 1e3:9.2f} {np_s * 1e3:9.2f} {sim_s / np_s:7.2f} "
              f"{row['cycles']:10.0f} {row['time_us']:8.2f}  {row['busiest_pipe']:7s}  "
              f"{'matches' if good else 'DIFFERS'} (max |err| {err:.2e})")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
