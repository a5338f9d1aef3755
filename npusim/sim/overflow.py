"""Floating-point overflow modes of the AI core (CANN's ``aclrtFloatOverflowMode`` / ``set_device_sat_mode``).

* ``"saturation"``: a float result that overflows is saturated to the dtype's extremum: +inf -> +max, -inf -> -max,
  NaN -> 0.  Ascend 910 (Atlas training series) supports only this mode; npusim assumes the same for the Atlas
  inference chips (310, 310P), which offer no way to choose.
* ``"inf_nan"``: IEEE 754 results (inf and NaN kept).  The default on Ascend 910B (Atlas A2), which can also be set
  to saturation for compatibility.

Which mode a chip supports and uses by default is chip data (``numerics`` in ``chips/*.yaml``).  The user chooses
with :func:`npusim.sim.set_overflow_mode` or the environment variable ``NPUSIM_SAT_MODE``, whose values follow
CANN's enum and ``INF_NAN_MODE_ENABLE``: ``0`` = saturation, ``1`` = inf_nan (the names work too).
"""
from __future__ import annotations

from npusim.errors.sim import OverflowModeError

SATURATION = "saturation"
INF_NAN = "inf_nan"
OVERFLOW_MODES = (SATURATION, INF_NAN)
ENV_VAR = "NPUSIM_SAT_MODE"

_SPELLINGS = {"0": SATURATION, "saturation": SATURATION, "1": INF_NAN, "inf_nan": INF_NAN, "infnan": INF_NAN}


def parse_overflow_mode(value, origin: str) -> str:
    """The mode named by ``value`` ("saturation" / "inf_nan", or CANN's 0 / 1); ``origin`` names who asked."""
    mode = _SPELLINGS.get(str(value).strip().lower())
    if mode is None:
        raise OverflowModeError(f"{origin}: unknown overflow mode {value!r}; use 'saturation' (0) or 'inf_nan' (1)")
    return mode


def check_supported(chip_name: str, supported: tuple, mode: str, origin: str) -> str:
    """Return ``mode`` if the chip supports it, else raise OverflowModeError naming the chip and its modes."""
    if mode not in supported:
        raise OverflowModeError(f"{origin}: {chip_name} does not support the {mode!r} overflow mode; it supports "
                                f"{', '.join(repr(m) for m in supported)}")
    return mode
