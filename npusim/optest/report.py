"""The op test's outputs: the result table, the JSON / CSV report and the progress bar.

The report holds no wall-clock times per case, so the same cases give the same report however they ran
(sequentially, under pytest-xdist or on Ray); results are ordered by chip, then by the case's place in its file.
"""
from __future__ import annotations

import csv
import json
import sys
from typing import Optional

CSV_FIELDS = ("case", "op", "soc", "signature", "kind", "status", "expect", "ok", "error_ratio", "max_rel_error",
              "max_abs_error", "criterion", "cycles", "busiest_pipe", "kernels", "message", "source")
_HEADER = ("case", "op", "soc", "shapes/dtypes", "result", "error metrics", "cycles", "pipe")
_MAX_SIGNATURE = 48


def ordered(results, socs=None) -> list:
    """Results in report order: chip (in ``socs`` order when given), then source file and case position."""
    rank = {name: i for i, name in enumerate(socs or ())}
    return sorted(results, key=lambda r: (rank.get(r.soc, len(rank)), r.soc, r.source, r.index, r.case))


def _result_cell(result) -> str:
    cell = result.status
    if result.expect == "failed":
        cell += " (expected fail)" if result.ok else " (expected fail!)"
    return cell


def _row(result) -> list:
    signature = result.signature
    if len(signature) > _MAX_SIGNATURE:
        signature = signature[:_MAX_SIGNATURE - 3] + "..."
    metrics = result.metrics() if result.status != "ERROR" else result.message.splitlines()[0][:60]
    cycles = f"{result.cycles:.0f}" if result.cycles is not None else "-"
    pipe = result.busiest_pipe or ("AICPU" if result.kind == "aicpu" else "-")
    return [result.case, result.op, result.soc, signature, _result_cell(result), metrics, cycles, pipe]


def table(results) -> str:
    """The result table (one line per case and chip) and a summary line."""
    lines = [list(_HEADER)] + [_row(r) for r in results]
    widths = [max(len(line[i]) for line in lines) for i in range(len(_HEADER))]
    text = ["  ".join(cell.rjust(w) if i == 6 else cell.ljust(w) for i, (cell, w) in enumerate(zip(line, widths)))
            .rstrip() for line in lines]
    return "\n".join([text[0], "-" * len(text[0])] + text[1:] + ["", summary_line(results)])


def summary(results) -> dict:
    counts = {status: sum(r.status == status for r in results) for status in ("PASS", "FAIL", "ERROR")}
    return {"cases": len(results), **{k.lower(): v for k, v in counts.items()},
            "as_expected": sum(r.ok for r in results), "not_as_expected": sum(not r.ok for r in results)}


def summary_line(results) -> str:
    s = summary(results)
    return (f"{s['cases']} case runs: {s['pass']} PASS, {s['fail']} FAIL, {s['error']} ERROR; "
            f"{s['not_as_expected']} not as expected")


def failures(results) -> str:
    """Details of every case that did not do what its file expects."""
    return "\n".join(r.describe() for r in results if not r.ok)


def to_json(results, extra: Optional[dict] = None) -> dict:
    return {"summary": summary(results), **(extra or {}), "cases": [r.to_json() for r in results]}


def _csv_row(result) -> dict:
    row = {key: value for key, value in result.to_json().items() if key in CSV_FIELDS}
    if result.comparisons:
        worst = max(result.comparisons, key=lambda c: (not c.passed, c.error_ratio, c.max_rel_error))
        row.update(error_ratio=worst.error_ratio, max_rel_error=worst.max_rel_error,
                   max_abs_error=worst.max_abs_error, criterion=worst.criterion)
    return row


def write_report(path: str, results, extra: Optional[dict] = None) -> None:
    """``.csv``: one row per case and chip (the worst output's metrics); anything else: JSON."""
    if str(path).lower().endswith(".csv"):
        with open(path, "w", newline="", encoding="utf-8") as handle:
            writer = csv.DictWriter(handle, fieldnames=CSV_FIELDS)
            writer.writeheader()
            for result in results:
                writer.writerow(_csv_row(result))
        return
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(to_json(results, extra), handle, indent=2)
        handle.write("\n")


class ProgressBar:
    """``[#####.....] 12/40 case`` redrawn in place on a terminal; silent when the stream is not a tty."""

    def __init__(self, stream=None, width: int = 30, enabled: Optional[bool] = None):
        self.stream = stream or sys.stderr
        self.width = width
        self.enabled = self.stream.isatty() if enabled is None else enabled

    def __call__(self, done: int, total: int, result=None) -> None:
        if not self.enabled or total <= 0:
            return
        filled = self.width * done // total
        name = (result.case if result is not None else "")[:40]
        self.stream.write(f"\r[{'#' * filled}{'.' * (self.width - filled)}] {done}/{total} {name:<40}")
        if done >= total:
            self.stream.write("\r" + " " * (self.width + 60) + "\r")
        self.stream.flush()


__all__ = ["CSV_FIELDS", "ProgressBar", "failures", "ordered", "summary", "summary_line", "table", "to_json",
           "write_report"]
