"""A stack of entered ``with`` contexts that follows the execution context (threads, asyncio tasks).

TBE's op contexts, compute contexts, build configs, ``tvm.target.cce()`` blocks and op-name scopes nest like this;
each stack lives in a :class:`contextvars.ContextVar`, so a thread or a task sees only the contexts it entered
(a new thread starts with an empty stack) and a ``with`` block always pops what it pushed.

    _CONTEXTS = ContextStack("npusim_op_contexts")
    token = _CONTEXTS.push(ctx)      # in __enter__
    _CONTEXTS.pop(token)             # in __exit__
    _CONTEXTS.top()                  # innermost, or None
"""
from __future__ import annotations

from contextvars import ContextVar


class ContextStack:
    """An immutable tuple per execution context, innermost last."""

    __slots__ = ("_var",)

    def __init__(self, name: str):
        self._var: ContextVar = ContextVar(name, default=())

    def push(self, item):
        """Enter ``item``; returns the token :meth:`pop` takes."""
        return self._var.set(self._var.get() + (item,))

    def pop(self, token) -> None:
        """Leave what the matching :meth:`push` entered (and anything entered after it and not left)."""
        self._var.reset(token)

    def top(self, default=None):
        """The innermost entered item, or ``default``."""
        items = self._var.get()
        return items[-1] if items else default

    def items(self) -> tuple:
        """Every entered item, outermost first."""
        return self._var.get()

    def __len__(self) -> int:
        return len(self._var.get())

    def __bool__(self) -> bool:
        return bool(self._var.get())


__all__ = ["ContextStack"]
