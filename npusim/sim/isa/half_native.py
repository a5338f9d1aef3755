"""float16 element-wise arithmetic through the compiled loop of :mod:`npusim.sim.isa._native` (``binary_f16``):
numpy's own float16 results bit for bit, many times faster than numpy's float16 loops.  Where it declines (a NaN
arises, operands it cannot take, the extension not built) the caller computes with numpy.
"""
from __future__ import annotations

from typing import Optional

import numpy as np

try:    # setup.py builds the extension; without it every call declines
    from npusim.sim.isa._native import binary_f16 as _binary_f16
except ImportError:  # pragma: no cover - a source tree without built extensions
    _binary_f16 = None

#: ufunc -> the compiled loop's op code
HALF_OPS = {} if _binary_f16 is None else {np.add: 0, np.subtract: 1, np.multiply: 2, np.divide: 3,
                                           np.maximum: 4, np.minimum: 5}


def half_into(code: int, a: np.ndarray, b: np.ndarray, out: np.ndarray) -> int:
    """``out = a op b`` for float16 (rows x span) arrays; the loop's status: 1 a result is infinite, 0 all finite,
    -1 declined (``out`` then holds nothing meaningful unless a source is ``out`` itself, which it leaves whole)."""
    if not (a.dtype == b.dtype == out.dtype == np.float16 and a.ndim == b.ndim == out.ndim == 2):
        return -1
    return _binary_f16(code, a.view(np.uint16), b.view(np.uint16), out.view(np.uint16))


def half_result(code: Optional[int], a: np.ndarray, b: np.ndarray) -> Optional[np.ndarray]:
    """A new array ``a op b`` for same-shaped 1-D or 2-D float16 arrays, or None where the compiled loop declines
    (it takes rows whose elements are contiguous)."""
    if code is None or a.shape != b.shape or a.dtype != np.float16 or b.dtype != np.float16 or a.ndim not in (1, 2):
        return None
    out = np.empty(a.shape, np.float16)
    if a.ndim == 1:
        status = half_into(code, a.reshape(1, -1), b.reshape(1, -1), out.reshape(1, -1))
    else:
        status = half_into(code, a, b, out)
    return out if status >= 0 else None
