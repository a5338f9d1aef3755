"""The name of the op being built, for the ``In op[<name>]`` prefix of TBE's error messages.

CANN's shape and broadcast helpers (``broadcast_shapes(shape1, shape2, op_name="")`` ...) are usually called without
an op name; CANN then reports the name of the op entry function whose ``check_op_params`` wrapper is running.  npusim
keeps that name on a context-local stack (per thread and task) for the duration of the call (:func:`op_name_scope`, entered by
``check_op_params`` and ``topi.cce.util.check_input_type``); outside any such call the active op context's op type
(set by ``register_operator``) is used.
"""
from __future__ import annotations

import contextlib

from npusim.util.context_stack import ContextStack
from te_compat.surface.context import get_context

_ENTERED = ContextStack("npusim_tbe_op_names")  # names of the op entry functions running


@contextlib.contextmanager
def op_name_scope(name: str):
    """While the block runs, :func:`current_op_name` is ``name``."""
    token = _ENTERED.push(name)
    try:
        yield name
    finally:
        _ENTERED.pop(token)


def current_op_name(default: str = "") -> str:
    """The innermost running op entry function's name, else the active op context's op type, else ``default``."""
    if _ENTERED:
        return _ENTERED.top()
    context = get_context()
    if context is not None and context.get_op_type():
        return str(context.get_op_type())
    return default


def op_name_or_current(op_name) -> str:
    """``op_name`` when given (non-empty), else :func:`current_op_name`."""
    return op_name if op_name else current_op_name()


__all__ = ["current_op_name", "op_name_or_current", "op_name_scope"]
