"""Wall time of 200 op test cases run three ways, in the same run: sequentially (``npusim optest``), as pytest items
over 2 workers (``pytest --npusim-optest ... -n 2``, pytest-xdist) and as Ray tasks on a local Ray instance
(``npusim optest --ray auto``, only when this interpreter has Ray: ``pip install 'npusim[ray]'``).

    python benchmarks/bench_optest.py [--cases N] [--soc NAME] [--workers W]

The cases are the example project's two ops (examples/optest: ScaledAdd, TBE DSL; ScaleShift, AICPU), half each,
over 10 shapes x 2 dtypes per op with a different seed per case, written to a temporary case file.  A warm-up run
first fills npusim's kernel caches (TBE kernels on disk, the AICPU library), so every timed row measures running
and judging cases, not compiling; each row is a fresh process (or worker pool) including its start-up.  Every run
must pass all cases; the script exits 1 otherwise.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO / "examples" / "optest"
SHAPES = ([16, 64], [4, 256], [2, 8, 32], [1, 1000], [32, 32], [128], [8, 8, 16], [3, 5, 7], [64, 64], [512])


def _tensor(name, dtype, shape, value_range=None):
    entry = {"name": name, "format": "ND", "type": dtype, "shape": shape}
    if value_range:
        entry["value_range"] = value_range
    return entry


def _scaled_add(index: int) -> dict:
    dtype, shape = ("float16", "float32")[index % 2], SHAPES[(index // 2) % len(SHAPES)]
    return {"case_name": f"Bench_ScaledAdd_{index:03d}", "op": "ScaledAdd",
            "calc_expect_func_file": f"{EXAMPLES / 'golden.py'}:calc_scaled_add",
            "input_desc": [_tensor("x1", dtype, shape, [-1.0, 1.0]), _tensor("x2", dtype, shape, [-1.0, 1.0])],
            "output_desc": [_tensor("y", dtype, shape)], "attr": [{"name": "alpha", "type": "float", "value": 0.5}]}


def _scale_shift(index: int) -> dict:
    dtype, shape = ("float32", "float16")[index % 2], SHAPES[(index // 2) % len(SHAPES)]
    return {"case_name": f"Bench_ScaleShift_{index:03d}", "op": "ScaleShift",
            "calc_expect_func_file": f"{EXAMPLES / 'golden.py'}:calc_scale_shift",
            "input_desc": [_tensor("x", dtype, shape, [-1.0, 1.0])], "output_desc": [_tensor("y", dtype, shape)],
            "attr": [{"name": "scale", "type": "float", "value": 2.0},
                     {"name": "shift", "type": "list_float", "value": [0.5, -0.5]}]}


def write_cases(directory: Path, count: int) -> Path:
    cases = [(_scaled_add if i % 2 == 0 else _scale_shift)(i) for i in range(count)]
    path = directory / "bench_cases.json"
    path.write_text(json.dumps(cases, indent=1))
    return path


def _env() -> dict:
    return dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))


def _timed(argv: list, cwd: Path) -> tuple:
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, env=_env())
    return time.perf_counter() - start, done


def _optest(cases: Path, soc: str, extra=()) -> list:
    return [sys.executable, "-m", "npusim", "optest", str(cases), "--impl-dir", str(EXAMPLES), "--soc", soc,
            "--quiet", *extra]


def _pytest(cases: Path, soc: str, workers: int) -> list:
    return [sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "-p", "no:cacheprovider", "-n", str(workers),
            "--npusim-optest", str(cases), "--npusim-optest-impl-dir", str(EXAMPLES), "--npusim-optest-soc", soc]


def _row(label: str, seconds: float, done, count: int, ok: bool) -> bool:
    verdict = "all passed" if ok else f"FAILED (exit {done.returncode}): {done.stdout[-400:]}{done.stderr[-400:]}"
    print(f"{label:<38} {seconds:8.2f} s  {count / seconds:7.1f} cases/s  {verdict}")
    return ok


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=200)
    parser.add_argument("--soc", default="Ascend910")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="npusim-bench-optest-") as tmp:
        cwd = Path(tmp)
        cases = write_cases(cwd, args.cases)
        seconds, done = _timed(_optest(cases, args.soc), cwd)
        print(f"{args.cases} cases on {args.soc}; warm-up (fills the kernel caches): {seconds:.2f} s, "
              f"exit {done.returncode}; {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}\n")
        all_ok = done.returncode == 0
        seconds, done = _timed(_optest(cases, args.soc), cwd)
        all_ok &= _row("sequential (npusim optest)", seconds, done, args.cases, done.returncode == 0)
        seconds, done = _timed(_pytest(cases, args.soc, args.workers), cwd)
        all_ok &= _row(f"pytest -n {args.workers} (pytest-xdist)", seconds, done, args.cases,
                       done.returncode == 0 and f"{args.cases} passed" in done.stdout)
        if importlib.util.find_spec("ray") is None:
            print(f"{'local Ray (npusim optest --ray auto)':<38} not measured: Ray is not installed in "
                  f"{sys.executable} (pip install 'npusim[ray]')")
        else:
            seconds, done = _timed(_optest(cases, args.soc, ("--ray", "auto")), cwd)
            all_ok &= _row("local Ray (npusim optest --ray auto)", seconds, done, args.cases, done.returncode == 0)
    return 0 if all_ok else 1


if __name__ == "__main__":
    sys.exit(main())
