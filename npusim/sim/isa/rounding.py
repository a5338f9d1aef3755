"""Numeric conversions with the vconv rounding modes (numpy only).

Modes: "" (none: nearest-even for narrowing floats, nearest-even for float->int as well), "r" round half to even,
"a" round half away from zero, "f" floor, "c" ceil, "z" toward zero, "o" round to odd (float32->float16 only).
float->int conversions saturate (NaN -> 0).  Float results are IEEE here (float32->float16 overflow gives inf in
the nearest modes and +-65504 where the directed mode rounds toward zero); a chip in saturation mode saturates them
afterwards (:mod:`npusim.sim.isa.saturate`, applied by vconv), so 1e6 -> 65504 on Ascend 910.
"""
from __future__ import annotations

import numpy as np

ROUND_MODE_NAMES = {"": "", "none": "", "r": "r", "round": "r", "rint": "r", "a": "a", "away-zero": "a",
                    "f": "f", "floor": "f", "c": "c", "ceil": "c", "ceiling": "c", "z": "z", "to-zero": "z",
                    "trunc": "z", "o": "o", "odd": "o"}


def _round_half_away(x: np.ndarray) -> np.ndarray:
    # on the magnitude, so that -0.0 and negatives that round to zero keep their sign (IEEE roundTiesToAway);
    # |x| + 0.5 is exact for every float16/float32 value below 2**52, and larger ones are already integral
    return np.copysign(np.floor(np.abs(x) + 0.5), x)


_INT_ROUNDERS = {"": np.rint, "r": np.rint, "a": _round_half_away, "f": np.floor, "c": np.ceil, "z": np.trunc}


def round_integral(x64: np.ndarray, mode: str) -> np.ndarray:
    """Round float64 values to integral float64 values with ``mode``."""
    return _INT_ROUNDERS[mode](x64)


def float_to_int(values: np.ndarray, dst: np.dtype, mode: str) -> np.ndarray:
    """float16/32 -> integer dtype with rounding mode, saturating; NaN becomes 0."""
    x64 = values.astype(np.float64)
    info = np.iinfo(dst)
    rounded = np.clip(round_integral(x64, mode), info.min, info.max)
    return np.where(np.isnan(rounded), 0, rounded).astype(dst)


def f32_to_f16(values: np.ndarray, mode: str) -> np.ndarray:
    """float32 -> float16 with rounding mode, IEEE 754 (overflow gives inf or +-65504 as the mode rounds)."""
    x = values.astype(np.float32)
    with np.errstate(over="ignore", invalid="ignore"):
        near = x.astype(np.float16)
        return near if mode in ("", "r") else _directed_f16(x.astype(np.float64), near, mode)


def _directed_f16(x64: np.ndarray, near: np.ndarray, mode: str) -> np.ndarray:
    near64 = near.astype(np.float64)
    if mode == "f":
        return np.where(near64 > x64, np.nextafter(near, np.float16(-np.inf)), near)
    if mode == "c":
        return np.where(near64 < x64, np.nextafter(near, np.float16(np.inf)), near)
    toward = np.where(np.abs(near64) > np.abs(x64), np.nextafter(near, np.float16(0)), near)
    if mode == "z":
        return toward
    toward64 = toward.astype(np.float64)
    outward = np.where(np.signbit(x64), np.float16(-np.inf), np.float16(np.inf))
    away = np.where(toward64 != x64, np.nextafter(toward, outward), toward)
    if mode == "a":  # nearest-even except at exact ties, which go away from zero (also: 65520 and up -> inf)
        return np.where(np.abs(away.astype(np.float64) - x64) == np.abs(x64 - toward64), away, near)
    if mode == "o":
        odd = (toward.view(np.uint16) & 1) == 1
        return np.where((toward64 == x64) | odd, toward, away)
    raise ValueError(f"rounding mode {mode!r} does not apply to float32->float16")


def convert(values: np.ndarray, src: np.dtype, dst: np.dtype, mode: str, deqscale=None) -> np.ndarray:
    """Convert ``values`` (dtype ``src``) to ``dst`` as vconv does; ``deqscale`` for s32->f16 dequantisation."""
    if deqscale is not None:
        return f32_to_f16((values.astype(np.float64) * float(deqscale)).astype(np.float32), "")
    if src.kind == "f" and dst.kind == "f":
        if dst.itemsize < src.itemsize:
            return f32_to_f16(values, mode)
        if dst == src:
            return round_integral(values.astype(np.float64), mode).astype(dst)
        return values.astype(dst)
    if src.kind == "f":
        return float_to_int(values, dst, mode)
    if dst.kind == "f":
        return values.astype(dst)
    info = np.iinfo(dst)
    return np.clip(values.astype(np.int64), info.min, info.max).astype(dst)
