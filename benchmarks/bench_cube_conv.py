"""Convolutions on the cube: the estimate against the cube roofline, and the wall time against numpy.

Runs ``te.lang.cce.conv`` (float16, NC1HWC0 feature map, FRACTAL_Z filter, stride 1, padding 1) of ResNet-like
layers on the simulator: the cycle estimate, its busiest pipe, whether the convolution's A operand was gathered by
load3d (te_compat/cube/conv_load3d.py) or built by the staged scalar im2col, the ratio to the cube roofline (flops
at the chip's peak float16 rate) and the wall time of one launch against a numpy float32 convolution of the same
data (im2col + matmul) in the same run, and whether the result matches that convolution (float16 rounding of the
float32 sums).  The machine is shared: compare ratios, not milliseconds.

    python benchmarks/bench_cube_conv.py [--chip Ascend910] [--repeats 3]
"""
from __future__ import annotations

import argparse
import os
import sys
import time

LAYERS = [  # (batch, channels in, height, width, channels out, kernel)
    (1, 64, 56, 56, 64, 3), (1, 128, 28, 28, 128, 3), (1, 256, 14, 14, 256, 3), (1, 512, 7, 7, 512, 3),
    (2, 64, 28, 28, 64, 1)]


def build(n, c, h, w, co, k):
    """(BuiltKernel, whether load3d gathers A) of the layer."""
    import npusim.compat  # noqa: F401
    import te.lang.cce as cce
    from te import tvm
    from te_compat.build import BuiltKernel
    from te_compat.build.cce import build_kernel
    c1, co1 = -(-c // 16), -(-co // 16)
    fmap = tvm.placeholder((n, c1, h, w, 16), name="fmap", dtype="float16")
    weight = tvm.placeholder((c1 * k * k, co1, 16, 16), name="weight", dtype="float16")
    pad = k // 2
    res = cce.conv(fmap, weight, {"pad_h": [pad, pad], "pad_w": [pad, pad], "stride_h": 1, "stride_w": 1,
                                  "filter_h": k, "filter_w": k})
    sch = cce.auto_schedule(res)
    kernel = BuiltKernel.from_result(build_kernel(sch, {"name": f"bench_conv_{n}_{c}_{h}_{co}_{k}",
                                                        "tensor_list": [fmap, weight, res]}))
    opcodes = {instr.opcode for _, instr in kernel.kernel.instructions()}
    return kernel, "load3d" in opcodes


def numpy_conv(x, w):
    """float32 convolution (stride 1, 'same' padding) by im2col + matmul: the wall-time baseline."""
    import numpy as np
    n, c, h, wd = x.shape
    co, _, k, _ = w.shape
    pad = k // 2
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    cols = np.stack([xp[:, :, i:i + h, j:j + wd] for i in range(k) for j in range(k)], axis=2)
    return np.einsum("nckhw,ock->nohw", cols, w.reshape(co, c, k * k), optimize=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chip", default="Ascend910")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(name, "1")
    import numpy as np
    from npusim.custom.backends.tbe_formats import to_format
    from npusim.sim import get_chip, profile, set_chip
    set_chip(args.chip)
    chip = get_chip(args.chip)
    rng = np.random.default_rng(0)
    print(f"{args.chip}: float16 convolutions, stride 1, 'same' padding")
    failed = False
    for n, c, h, w, co, k in LAYERS:
        kernel, by_load3d = build(n, c, h, w, co, k)
        x = rng.standard_normal((n, c, h, w)).astype(np.float16)
        wt = (rng.standard_normal((co, c, k, k)) * 0.1).astype(np.float16)
        x5, wz = to_format(x, "NC1HWC0"), to_format(wt, "FRACTAL_Z")
        xf, wf = x.astype(np.float32), wt.astype(np.float32)
        sim_s, np_s = [], []
        for _ in range(args.repeats):
            start = time.perf_counter()
            with profile() as prof:
                out = kernel.run(x5, wz)
            sim_s.append(time.perf_counter() - start)
            start = time.perf_counter()
            ref = numpy_conv(xf, wf)
            np_s.append(time.perf_counter() - start)
        out = np.asarray(out[0] if isinstance(out, (list, tuple)) else out).astype(np.float32)
        got = out.transpose(0, 1, 4, 2, 3).reshape(n, -1, h, w)[:, :co]     # NC1HWC0 -> NCHW
        matches = bool((np.abs(got - ref) <= 2e-3 * np.abs(ref) + 3e-2).all())
        failed = failed or not matches
        row = prof.rows()[-1]
        flops = 2 * n * co * c * k * k * h * w
        roof_us = flops / (chip.peak_fp16_tflops * 1e12) * 1e6
        print(f"  {n}x{c}x{h}x{w} -> {co}, {k}x{k}: {row['cycles']:.0f} cycles = {row['time_us']:.2f} us "
              f"(x{row['time_us'] / roof_us:.1f} the cube roofline {roof_us:.2f} us), busiest {row['busiest_pipe']}, "
              f"{row['block_dim']} blocks, A {'by load3d' if by_load3d else 'staged'}; wall {min(sim_s) * 1e3:.0f} ms "
              f"vs numpy {min(np_s) * 1e3:.0f} ms (x{min(sim_s) / min(np_s):.1f}); "
              f"{'matches numpy' if matches else 'DIFFERS from numpy'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
