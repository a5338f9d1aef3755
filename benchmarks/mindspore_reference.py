"""MindSpore's own Custom-op call cost, measured now in another interpreter, for the overhead benchmarks.

The benchmarks print only what they measure.  To compare with a real MindSpore, give an interpreter that can import
it (MindSpore and npusim rarely share an environment):

    python benchmarks/bench_custom_overhead.py --mindspore-python /path/to/ms-venv/bin/python
    NPUSIM_BENCH_MINDSPORE_PYTHON=/path/to/ms-venv/bin/python python benchmarks/bench_aicpu_overhead.py

:func:`measure` compiles the aot kernel source with g++ (npusim's flags), runs this file in that interpreter
(``--child``: standard library, numpy and ``mindspore`` only), which times ``ops.Custom`` pyfunc and aot calls of a
float32 add on CPU in PyNative mode (best of ``repeat`` batches of ``number`` calls, each batch ending with one
``asnumpy()`` so MindSpore's asynchronous execution is waited for), and reads back one JSON line.  The reference
says which ``mindspore`` it measured: a real MindSpore, or npusim's own surface (``npusim.ms``) when the
interpreter serves that one.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ENV_VAR = "NPUSIM_BENCH_MINDSPORE_PYTHON"
CHILD_TIMEOUT_SECONDS = 900
COMPILE_FLAGS = ("-std=c++17", "--shared", "-fPIC", "-O3")
ROWS = ("pyfunc", "aot")


class MindSporeRunError(RuntimeError):
    """The MindSpore interpreter could not be run or did not report figures (the message says why)."""


@dataclass(frozen=True)
class Reference:
    """Figures measured in another interpreter: ``us_per_call[(row, elements)]`` for rows "pyfunc" and "aot"."""

    python: str
    version: str
    origin: str
    real: bool
    us_per_call: dict

    def name(self) -> str:
        """Short: "MindSpore 2.10.0", or "npusim's mindspore surface" when that is what was measured."""
        return f"MindSpore {self.version}" if self.real else "npusim's mindspore surface (not MindSpore)"

    def label(self) -> str:
        """Which MindSpore was measured, for the benchmark's output."""
        if self.real:
            return f"MindSpore {self.version} (CPU, {self.origin})"
        return f"npusim's mindspore surface {self.version} ({self.origin}; not a real MindSpore)"


def add_option(parser: argparse.ArgumentParser) -> None:
    """Add ``--mindspore-python PATH`` (default: $NPUSIM_BENCH_MINDSPORE_PYTHON)."""
    parser.add_argument("--mindspore-python", metavar="PATH", default=os.environ.get(ENV_VAR) or None,
                        help=f"an interpreter that imports a real MindSpore: measure it side by side (default: "
                             f"${ENV_VAR}; without one, only npusim is measured)")


def not_measured_line() -> str:
    return (f"MindSpore: not measured (give --mindspore-python PATH or set {ENV_VAR} to an interpreter that imports "
            f"MindSpore to measure it side by side)")


def measure(python: str, aot_source, elements, numbers, repeat: int) -> Reference:
    """Time MindSpore's pyfunc and aot Custom calls in ``python`` at each of ``elements`` (``numbers``: calls per
    batch, one per size); MindSporeRunError with the interpreter's output when it fails."""
    with tempfile.TemporaryDirectory(prefix="npusim-bench-ms-") as work:
        library = Path(work) / "aot_add.so"
        compiled = subprocess.run(["g++", *COMPILE_FLAGS, "-o", str(library), str(aot_source)],
                                  capture_output=True, text=True)
        if compiled.returncode != 0:
            raise MindSporeRunError(f"g++ could not compile {aot_source}: {compiled.stderr.strip()[-500:]}")
        command = [python, os.path.abspath(__file__), "--child", "--library", str(library), "--repeat", str(repeat),
                   "--elements", *map(str, elements), "--numbers", *map(str, numbers)]
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=CHILD_TIMEOUT_SECONDS, cwd=work)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise MindSporeRunError(f"cannot run {python}: {exc}") from exc
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        raise MindSporeRunError(f"{python} exited with status {done.returncode}: {done.stderr.strip()[-800:]}")
    report = json.loads(lines[-1])
    figures = {(row, int(n)): float(us) for row, by_size in report["rows"].items() for n, us in by_size.items()}
    return Reference(python, report["version"], report["origin"], report["real"], figures)


# ---- the child: runs in the MindSpore interpreter -------------------------------------------------------------
def _child_ops(library: str):
    from mindspore import context, ops
    context.set_context(mode=context.PYNATIVE_MODE, device_target="CPU")
    pyfunc = ops.Custom(lambda a, b: a + b, out_shape=lambda x, _: x, out_dtype=lambda x, _: x, func_type="pyfunc")
    aot = ops.Custom(f"{library}:CustomAdd", out_shape=lambda x, _: x, out_dtype=lambda x, _: x, func_type="aot")
    return {"pyfunc": pyfunc, "aot": aot}


def _best_us(op, ta, tb, number: int, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            out = op(ta, tb)
        out.asnumpy()                                  # wait for the batch (PyNative may run asynchronously)
        best = min(best, (time.perf_counter() - start) / number * 1e6)
    return best


def _child(args) -> int:
    import numpy as np
    import mindspore
    from mindspore import Tensor
    custom = _child_ops(args.library)
    rows = {row: {} for row in ROWS}
    for n, number in zip(args.elements, args.numbers):
        a = np.random.rand(n).astype(np.float32)
        b = np.random.rand(n).astype(np.float32)
        ta, tb = Tensor(a), Tensor(b)
        for row in ROWS:
            np.testing.assert_allclose(custom[row](ta, tb).asnumpy(), a + b, rtol=1e-6)
            rows[row][str(n)] = _best_us(custom[row], ta, tb, number, args.repeat)
    real = mindspore.__name__ == "mindspore"
    report = {"version": getattr(mindspore, "__version__", "?"), "real": real,
              "origin": os.path.dirname(os.path.abspath(mindspore.__file__)), "rows": rows}
    print(json.dumps(report))
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description="the child of measure(): run in the MindSpore interpreter")
    parser.add_argument("--child", action="store_true", required=True)
    parser.add_argument("--library", required=True)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--elements", type=int, nargs="+", required=True)
    parser.add_argument("--numbers", type=int, nargs="+", required=True)
    return _child(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
