"""``tvm.target`` of CANN's TVM: ``with tvm.target.cce():`` marks code compiled for the AI core.

npusim has one target (the simulated AI core), so entering ``cce()`` only records that a CCE target is current
(:func:`current_target`); the schedule and build functions do not depend on it.
"""
from __future__ import annotations

from dataclasses import dataclass

from npusim.errors import TbeArgumentError
from npusim.util.context_stack import ContextStack

_ACTIVE = ContextStack("npusim_tvm_targets")  # entered CceTarget objects (per thread and task)


@dataclass(frozen=True)
class CceTarget:
    """The AI-core ("cce") target; a context manager."""

    options: tuple = ()

    @property
    def target_name(self) -> str:
        return "cce"

    @property
    def keys(self) -> tuple:
        return ("cce",)

    def __str__(self) -> str:
        return " ".join(("cce",) + self.options)

    def __enter__(self) -> "CceTarget":
        tokens = self.__dict__.get("_tokens")
        if tokens is None:   # not a field: the value stays frozen, the with-block tokens live beside it
            tokens = []
            object.__setattr__(self, "_tokens", tokens)
        tokens.append(_ACTIVE.push(self))
        return self

    def __exit__(self, *exc) -> None:
        _ACTIVE.pop(self.__dict__["_tokens"].pop())


def cce(options=None) -> CceTarget:
    """The CCE target (``options``: a string or list of "-key=value" flags, kept for display)."""
    if options is None:
        return CceTarget()
    return CceTarget(tuple(options.split() if isinstance(options, str) else options))


def current_target(allow_none: bool = True):
    """The innermost entered target, None outside any (or an error when ``allow_none`` is False)."""
    if _ACTIVE:
        return _ACTIVE.top()
    if not allow_none:
        raise TbeArgumentError("no target is active (use `with tvm.target.cce():`)")
    return None


def create(target_str):
    """``tvm.target.create``: "cce..." gives :class:`CceTarget`; anything else a TVM 0.27 ``Target``."""
    text = str(target_str)
    if text.split(" ", 1)[0] == "cce":
        return cce(text.split()[1:])
    import tvm
    return tvm.target.Target(text)


__all__ = ["CceTarget", "cce", "create", "current_target"]
