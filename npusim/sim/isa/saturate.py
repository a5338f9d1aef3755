"""Saturation of float results, for chips in the "saturation" overflow mode (see :mod:`npusim.sim.overflow`).

Every computing instruction that writes float results (vector binary, unary, tensor-scalar, ternary, vcadd's
partial sums, float->float vconv, mmad) passes them through :func:`saturate` when the chip saturates:
+inf -> +max of the dtype, -inf -> -max, NaN -> 0.  Compiling decides once per instruction
(:func:`saturator_for`), so an IEEE-mode chip and integer dtypes pay nothing.  Moves, ``vector_dup``, comparisons,
selects and vcmax/vcmin (which pick an element and write raw index bits) do not compute and are left alone.

Cost: the common case (all results finite) is one cheap pass: float16 checks the exponent bits of the raw
uint16 view (``(bits & 0x7FFF).max() >= 0x7C00``, several times faster than ``np.isfinite`` on float16), wider
floats use ``np.isfinite(...).all()``; only arrays holding inf/NaN are rewritten.
"""
from __future__ import annotations

from typing import Callable, Optional

import numpy as np

_F16_MAGNITUDE_MASK = np.uint16(0x7FFF)
_F16_INF_BITS = 0x7C00


def has_nonfinite(values: np.ndarray) -> bool:
    """Whether a float array holds inf or NaN."""
    if values.size == 0:
        return False
    if values.dtype == np.float16:
        bits = values.view(np.uint16)     # same itemsize: a view whatever the strides
        return int(np.bitwise_and(bits, _F16_MAGNITUDE_MASK).max()) >= _F16_INF_BITS
    return not bool(np.isfinite(values).all())


def saturate(values: np.ndarray) -> np.ndarray:
    """``values`` with +inf -> +max of its float dtype, -inf -> -max, NaN -> 0 (a new array only if any changed)."""
    values = np.asarray(values)
    if not has_nonfinite(values):
        return values
    fmax = np.finfo(values.dtype).max
    return np.nan_to_num(values, copy=True, nan=0.0, posinf=fmax, neginf=-fmax)


def saturator_for(chip, dtype) -> Optional[Callable[[np.ndarray], np.ndarray]]:
    """:func:`saturate` if ``chip`` saturates and ``dtype`` is a float dtype, else None (results kept as computed)."""
    return saturate if chip.saturates and np.dtype(dtype).kind == "f" else None


def saturating(semantics: Callable, chip, dtype) -> Callable:
    """``semantics`` whose result is saturated when :func:`saturator_for` says so (else ``semantics`` itself)."""
    fix = saturator_for(chip, dtype)
    if fix is None:
        return semantics

    def saturated(*args):
        return fix(semantics(*args))
    return saturated
