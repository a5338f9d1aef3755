"""CANN's precision criteria: is an op's output close enough to the golden (expected) output?

Two methods, both CANN's:

* **Per-dtype precision standard** (the default): CANN's op test frame (``op_test_frame.common.precision_info``
  and ``op_test_frame.utils.precision_compare_util``, also shipped in MindStudio's msopst as
  ``msopst.common.precision_info``).  A :class:`PrecisionStandard` has CANN's field names: an element is an
  *error* when ``|actual - expected| > min(|actual|, |expected|) * atol`` (``precision_type`` "percent"; for
  "absolute" when ``|actual - expected| > atol``); the output fails when more than ``rtol * N`` elements are errors,
  or when any element's difference exceeds ``max_atol`` the same way.  Defaults per dtype
  (``get_default_standard``): float16 (0.001, 0.001, 0.1) — 0.1 % of elements may be off by more than 0.1 %,
  none by more than 10 % ("双千分之一"); float32 (0.0001, 0.0001, 0.01); int8 / uint8 absolute (0.001, 1, 1);
  everything else (0.001, 0.001, 0.1).  bool outputs must match exactly.
* **msopst's error threshold** (a case's ``error_threshold`` or ``npusim optest --error-threshold``; msopst's
  ``-err_thr``, default [0.01, 0.05], documented in MindStudio's "生成测试用例定义文件" page,
  https://www.hiascend.com/document/detail/zh/mindstudio/830/ODtools/Operatordevelopmenttools/atlasopdev_16_0032.html,
  as [threshold1, threshold2]): msopst's ``st/interface/result_comparer._data_compare``: the relative difference of an
  element is ``d`` when ``d = |a - e| < threshold``, else ``d / (max(|a|, |e|, 2**-14 / threshold) + 1e-9)``; an
  element whose relative difference exceeds ``threshold`` is an error; the output passes when at most ``ratio`` of
  the elements are errors and no error reaches 0.1 (msopst's max_diff_hd).

NaN matches NaN and an infinity the same infinity; any other NaN / inf mismatch is an error over every bound.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

import numpy as np

#: msopst's error_threshold default and its fixed bound on any single element's relative difference
MSOPST_DEFAULT_THRESHOLD = (0.01, 0.05)
MSOPST_MAX_DIFF = 0.1
_TINY_SCALE = 1.0 / (1 << 14)
_EPSILON = 10e-10


@dataclass(frozen=True)
class PrecisionStandard:
    """CANN's PrecisionStandard (its names): ``rtol`` the ratio of elements allowed to be errors, ``atol`` the
    per-element bound (relative for "percent", absolute for "absolute"), ``max_atol`` the bound no element may
    exceed (None: no such bound)."""

    rtol: float
    atol: float
    max_atol: Optional[float] = None
    precision_type: str = "percent"

    def to_json(self) -> dict:
        return {"rtol": self.rtol, "atol": self.atol, "max_atol": self.max_atol, "precision_type": self.precision_type}


#: CANN's get_default_standard
DEFAULT_STANDARDS = {
    "float16": PrecisionStandard(0.001, 0.001, 0.1),
    "float32": PrecisionStandard(0.0001, 0.0001, 0.01),
    "int8": PrecisionStandard(0.001, 1, 1, "absolute"),
    "uint8": PrecisionStandard(0.001, 1, 1, "absolute"),
}
FALLBACK_STANDARD = PrecisionStandard(0.001, 0.001, 0.1)
EXACT_STANDARD = PrecisionStandard(0.0, 0.0, 0.0, "absolute")


def default_standard(dtype: str) -> PrecisionStandard:
    """CANN's default standard of an output dtype (bool: exact)."""
    if dtype == "bool":
        return EXACT_STANDARD
    return DEFAULT_STANDARDS.get(dtype, FALLBACK_STANDARD)


def standard_from_json(obj) -> PrecisionStandard:
    """A PrecisionStandard from op_test_frame's JSON form ``{"rtol", "atol", "max_atol", "precision_type"}``."""
    if not isinstance(obj, dict):
        raise TypeError("expected an object with rtol, atol, max_atol, precision_type")
    kind = obj.get("precision_type", "percent")
    if kind not in ("percent", "absolute"):
        raise ValueError(f"precision_type must be 'percent' or 'absolute', got {kind!r}")
    values = [obj["rtol"], obj["atol"], obj.get("max_atol")]
    if not all(v is None or (isinstance(v, (int, float)) and v >= 0) for v in values) or values[0] is None:
        raise ValueError("rtol, atol and max_atol must be non-negative numbers")
    return PrecisionStandard(float(values[0]), float(values[1]), None if values[2] is None else float(values[2]),
                             kind)


@dataclass(frozen=True)
class Tolerances:
    """The user's criteria from the command line: per-dtype standards ("all" for every dtype) and msopst's
    error threshold; both win over what a case says (as msopst's command line does)."""

    by_dtype: dict = field(default_factory=dict)
    error_threshold: Optional[tuple] = None

    def standard_for(self, dtype: str) -> Optional[PrecisionStandard]:
        return self.by_dtype.get(dtype, self.by_dtype.get("all"))


def parse_tolerance(text: str) -> tuple:
    """``DTYPE:ATOL,RTOL[,MAX_ATOL][,absolute]`` → (dtype, PrecisionStandard); e.g. ``float16:0.005,0.002,0.1``
    (per-element bound 0.5 %, 0.2 % of the elements may exceed it, none may exceed 10 %)."""
    dtype, sep, rest = text.partition(":")
    parts = [p.strip() for p in rest.split(",") if p.strip()]
    kind = "percent"
    if parts and parts[-1] in ("absolute", "percent"):
        kind = parts.pop()
    if not sep or not dtype or len(parts) not in (2, 3):
        raise ValueError(f"a tolerance is DTYPE:ATOL,RTOL[,MAX_ATOL][,absolute], got {text!r}")
    try:
        numbers = [float(p) for p in parts]
    except ValueError:
        raise ValueError(f"a tolerance's bounds must be numbers, got {text!r}") from None
    if any(n < 0 for n in numbers):
        raise ValueError(f"a tolerance's bounds must not be negative, got {text!r}")
    atol, rtol = numbers[0], numbers[1]
    return dtype, PrecisionStandard(rtol, atol, numbers[2] if len(numbers) == 3 else None, kind)


def parse_threshold(text: str) -> tuple:
    """``THRESHOLD,RATIO`` (or msopst's "[0.01,0.05]") → (threshold, ratio), both in [0, 1]."""
    parts = [p.strip() for p in text.strip().strip("[]").split(",") if p.strip()]
    try:
        values = tuple(float(p) for p in parts)
    except ValueError:
        values = ()
    if len(values) != 2 or not all(0 <= v <= 1 for v in values):
        raise ValueError(f"an error threshold is THRESHOLD,RATIO with values in [0, 1], got {text!r}")
    return values


@dataclass(frozen=True)
class Comparison:
    """How one output compares with its golden: the verdict and the error metrics."""

    passed: bool
    method: str                # "standard" (CANN per dtype) or "threshold" (msopst error_threshold)
    criterion: str             # the bounds applied, for the report
    elements: int
    error_count: int
    max_abs_error: float
    max_rel_error: float
    message: str = ""

    @property
    def error_ratio(self) -> float:
        return self.error_count / self.elements if self.elements else 0.0

    def to_json(self) -> dict:
        return {"passed": self.passed, "method": self.method, "criterion": self.criterion,
                "elements": self.elements, "error_count": self.error_count, "error_ratio": self.error_ratio,
                "max_abs_error": _finite(self.max_abs_error), "max_rel_error": _finite(self.max_rel_error),
                "message": self.message}


def _finite(value: float):
    return value if np.isfinite(value) else str(value)


def _prepared(actual: np.ndarray, expected: np.ndarray):
    """Both as flat float64 (complex as magnitude of the difference later), plus where special values agree."""
    a = np.asarray(actual).reshape(-1)
    e = np.asarray(expected).reshape(-1)
    if a.dtype == np.bool_ or e.dtype == np.bool_:
        a, e = a.astype(np.int8), e.astype(np.int8)
    a = a.astype(np.complex128 if np.iscomplexobj(a) or np.iscomplexobj(e) else np.float64)
    e = e.astype(a.dtype)
    same_special = (np.isnan(a) & np.isnan(e)) | (np.isinf(a) & (a == e))
    special = ~np.isfinite(a) | ~np.isfinite(e)
    with np.errstate(invalid="ignore", over="ignore"):
        diff = np.where(special, np.where(same_special, 0.0, np.inf), np.abs(a - e))
    return np.abs(a), np.abs(e), diff.astype(np.float64)


def _relative(diff: np.ndarray, expected_abs: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(diff == 0, 0.0, diff / expected_abs)


def compare_standard(actual, expected, standard: PrecisionStandard) -> Comparison:
    """CANN's per-dtype precision standard (see the module docstring)."""
    if np.size(actual) != np.size(expected):
        return _size_mismatch(int(np.size(actual)), int(np.size(expected)), "standard")
    a_abs, e_abs, diff = _prepared(actual, expected)
    scale = np.ones_like(diff) if standard.precision_type == "absolute" else np.minimum(a_abs, e_abs)
    scale = np.nan_to_num(scale, nan=0.0)   # a NaN / inf mismatch (diff inf) is an error over every bound
    errors = diff > scale * standard.atol
    over_max = errors & (diff > scale * standard.max_atol) if standard.max_atol is not None else errors & False
    n, count = diff.size, int(errors.sum())
    allowed = standard.rtol * n
    criterion = (f"{standard.precision_type} atol={standard.atol:g} rtol={standard.rtol:g}"
                 + (f" max_atol={standard.max_atol:g}" if standard.max_atol is not None else ""))
    reasons = []
    if count > allowed:
        reasons.append(f"{count} of {n} elements exceed atol {standard.atol:g} (allowed {allowed:g})")
    if over_max.any():
        reasons.append(f"{int(over_max.sum())} element(s) exceed max_atol {standard.max_atol:g}")
    return Comparison(not reasons, "standard", criterion, n, count, float(diff.max(initial=0.0)),
                      float(_relative(diff, e_abs).max(initial=0.0)), "; ".join(reasons))


def compare_threshold(actual, expected, threshold: tuple = MSOPST_DEFAULT_THRESHOLD) -> Comparison:
    """msopst's error-threshold comparison (see the module docstring)."""
    if np.size(actual) != np.size(expected):
        return _size_mismatch(int(np.size(actual)), int(np.size(expected)), "threshold")
    a_abs, e_abs, diff = _prepared(actual, expected)
    limit, ratio = threshold
    floor = _TINY_SCALE / limit if limit > 0 else np.inf
    with np.errstate(invalid="ignore", over="ignore"):
        rdiff = np.where(diff < limit, diff, diff / (np.maximum(np.maximum(a_abs, e_abs), floor) + _EPSILON))
    rdiff[np.isinf(diff)] = np.inf   # a NaN / inf mismatch: an error over every bound
    errors = rdiff > limit
    n, count = diff.size, int(errors.sum())
    worst = float(rdiff[errors].max()) if count else 0.0
    reasons = []
    if n and (n - count) / n < 1 - ratio:
        reasons.append(f"{count} of {n} elements exceed threshold {limit:g} (allowed ratio {ratio:g})")
    if worst >= MSOPST_MAX_DIFF:
        reasons.append(f"the largest relative difference {worst:g} reaches {MSOPST_MAX_DIFF:g}")
    return Comparison(not reasons, "threshold", f"error_threshold=[{limit:g},{ratio:g}]", n, count,
                      float(diff.max(initial=0.0)), float(_relative(diff, e_abs).max(initial=0.0)),
                      "; ".join(reasons))


def _size_mismatch(actual: int, expected: int, method: str) -> Comparison:
    return Comparison(False, method, "-", actual, actual, float("inf"), float("inf"),
                      f"the output has {actual} elements but the golden has {expected}")


def compare_output(actual, expected, dtype: str, case_standard: Optional[PrecisionStandard] = None,
                   case_threshold: Optional[tuple] = None, tolerances: Optional[Tolerances] = None) -> Comparison:
    """Judge one output: the command line's error threshold, else the case's error_threshold, else the command
    line's standard for the dtype, else the case's precision_standard, else CANN's default for the dtype."""
    tolerances = tolerances or Tolerances()
    threshold = tolerances.error_threshold or case_threshold
    if threshold is not None:
        return compare_threshold(actual, expected, threshold)
    standard = tolerances.standard_for(dtype) or case_standard or default_standard(dtype)
    return compare_standard(actual, expected, standard)


__all__ = ["Comparison", "DEFAULT_STANDARDS", "MSOPST_DEFAULT_THRESHOLD", "PrecisionStandard", "Tolerances",
           "compare_output", "compare_standard", "compare_threshold", "default_standard", "parse_threshold",
           "parse_tolerance", "standard_from_json"]
