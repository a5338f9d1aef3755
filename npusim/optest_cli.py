"""``npusim optest``: run op test case files (CANN's msopst JSON form) on the simulator (wired into the CLI by
npusim/cli.py; the work is done by :mod:`npusim.optest`).

    npusim optest CASES.json [CASES.json ...] [--soc A,B] [--report out.json|out.csv] [--tolerance DTYPE:ATOL,RTOL]
                  [--error-threshold T,R] [--impl-dir DIR] [--case NAME] [--seed N] [--ray ADDRESS|auto]

Exit status: 0 when every case did what its file expects, 1 when one did not (or the report could not be written),
2 for a usage error or an invalid case file (one line on stderr).
"""
from __future__ import annotations

import argparse
import os
import sys
import time

from npusim.cli import CommandParser, parse_command, usage_error
from npusim.errors import CaseFileError, RayUnavailableError

PROG = "npusim optest"


def _soc_list(text: str) -> tuple:
    """argparse type of --soc: comma-separated chip names npusim models."""
    from npusim.sim_cli import chip_name
    names = tuple(n.strip() for n in text.split(",") if n.strip())
    if not names:
        raise argparse.ArgumentTypeError("no chip named")
    return tuple(chip_name(name) for name in names)


def _tolerance(text: str) -> tuple:
    from npusim.optest.criteria import parse_tolerance
    try:
        return parse_tolerance(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _threshold(text: str) -> tuple:
    from npusim.optest.criteria import parse_threshold
    try:
        return parse_threshold(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _report_file(text: str) -> str:
    directory = os.path.dirname(os.path.abspath(text))
    if not os.path.isdir(directory):
        raise argparse.ArgumentTypeError(f"cannot write {text!r}: directory {directory!r} does not exist")
    return text


def _parser() -> argparse.ArgumentParser:
    parser = CommandParser(prog=PROG, description="Run op test case files (CANN msopst JSON) on the simulator: "
                           "TBE / TIK / AICPU implementations, CANN's precision criteria, cycles per case.")
    parser.add_argument("case_files", nargs="+", metavar="CASES.json", help="msopst case definition files")
    parser.add_argument("--soc", type=_soc_list, metavar="A,B", help="chips to run every case on (default: "
                        "NPUSIM_SOC or Ascend910)")
    parser.add_argument("--report", type=_report_file, metavar="FILE", help="write the report: FILE.json or FILE.csv")
    parser.add_argument("--tolerance", type=_tolerance, action="append", default=[], metavar="DTYPE:ATOL,RTOL[,MAX]",
                        help="precision standard of a dtype ('all' for every dtype), CANN's names: ATOL the per-"
                             "element relative bound, RTOL the ratio of elements allowed over it, MAX the bound no "
                             "element may exceed; wins over the case file (repeatable)")
    parser.add_argument("--error-threshold", type=_threshold, metavar="T,R",
                        help="msopst's error threshold [threshold, ratio] for every case (wins over the case file)")
    parser.add_argument("--impl-dir", action="append", default=[], metavar="DIR",
                        help="where to look for implementations before the case file's directory: a directory "
                             "holding impl/, tbe/impl/, cpukernel/impl/ or lib/ (repeatable)")
    parser.add_argument("--case", action="append", default=[], metavar="NAME", help="run only this case (repeatable)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the input data (default 0)")
    parser.add_argument("--ray", metavar="ADDRESS", help="run the cases as Ray tasks: a cluster address, or 'auto' "
                        "(the local cluster, started if none runs); needs npusim[ray]")
    parser.add_argument("--quiet", action="store_true", help="print only the summary and the failures")
    return parser


def _load(args) -> list:
    from npusim.optest.cases import load_cases
    cases = []
    for path in args.case_files:
        if not os.path.isfile(path):
            raise CaseFileError(f"no such case file: {path}")
        cases += load_cases(path, set(args.case) or None)
    return cases


def _options(args):
    from npusim.optest.criteria import Tolerances
    from npusim.optest.runner import RunOptions
    tolerances = Tolerances(dict(args.tolerance), args.error_threshold)
    return RunOptions(socs=args.soc or (None,), seed=args.seed, tolerances=tolerances,
                      impl_dirs=tuple(os.path.abspath(d) for d in args.impl_dir))


def _run(cases, options, args) -> list:
    from npusim.optest.report import ProgressBar
    progress = ProgressBar()
    if args.ray:
        from npusim.optest.ray_runner import run_on_ray
        return run_on_ray(cases, options, args.ray, progress)
    from npusim.optest.runner import OpTestSession
    return OpTestSession(options).run(cases, progress)


def optest_main(argv: list) -> int:
    """``npusim optest ...`` (see the module docstring); returns the exit status."""
    args = parse_command(_parser(), argv)
    if isinstance(args, int):
        return args
    bad_dirs = [d for d in args.impl_dir if not os.path.isdir(d)]
    if bad_dirs:
        return usage_error(PROG, f"--impl-dir {bad_dirs[0]!r} is not a directory")
    try:
        cases = _load(args)
        if not cases:
            return usage_error(PROG, f"no case to run (--case {', '.join(args.case)} matched none)")
        options = _options(args)
        started = time.perf_counter()
        results = _run(cases, options, args)
    except (CaseFileError, RayUnavailableError) as exc:
        return usage_error(PROG, " ".join(str(exc).split()))
    return _finish(results, options, args, time.perf_counter() - started)


def _finish(results, options, args, seconds: float) -> int:
    from npusim.optest import report
    results = report.ordered(results, [r for r in options.socs if r])
    print(report.summary_line(results) if args.quiet else report.table(results))
    details = report.failures(results)
    if details:
        print("\n" + details)
    status = 0 if all(r.ok for r in results) else 1
    if args.report:
        try:
            report.write_report(args.report, results, {"wall_seconds": round(seconds, 3)})
        except OSError as exc:
            print(f"{PROG}: cannot write the report: {exc}", file=sys.stderr)
            return 1
        print(f"report written to {args.report}")
    return status


__all__ = ["optest_main"]
