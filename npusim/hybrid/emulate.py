"""Running a hybrid function directly in Python on numpy arrays (MindSpore's "call the kernel" semantics)."""
from __future__ import annotations

import types

from npusim.hybrid.intrinsics import EMULATION_GLOBALS


def run_emulated(func, args: tuple, kwargs: dict):
    """Call the plain function ``func`` with the DSL intrinsics visible as globals.

    The intrinsics are layered over a copy of the function's module globals taken at call time, so the user's
    module is never modified and later changes to it are still seen.  Returns what the function returns.
    """
    run_globals = dict(func.__globals__)
    run_globals.update(EMULATION_GLOBALS)
    runnable = types.FunctionType(func.__code__, run_globals, func.__name__, func.__defaults__, func.__closure__)
    runnable.__kwdefaults__ = func.__kwdefaults__
    return runnable(*args, **kwargs)
