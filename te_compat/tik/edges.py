"""Where TIK code enters npusim: ``Tik()``, ``BuildCCE`` and ``tikdb.start_debug`` read the current runtime here
(an API edge, tests/architecture/test_state.py) and pass it down."""
from __future__ import annotations


def runtime_now():
    """The current runtime (its target decides the chip a ``Tik()`` kernel is written for)."""
    from npusim.sim.runtime import current_runtime
    return current_runtime()


__all__ = ["runtime_now"]
