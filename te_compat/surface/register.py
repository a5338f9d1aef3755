"""``tbe.common.register``: registration decorators of op entry and compute functions.

They record the function under its op type (explicit registries, readable with :func:`registered_operators` and
:func:`registered_computes`) and otherwise leave it alone.  ``register_operator`` additionally runs the entry
function inside an ``OpContext("static")`` when no op context is active, as CANN's compiler does around a
dynamic-style op, so ``tbe_context.get_context()`` works inside it.  An entry called with unknown dims (``-1`` /
``-2`` in a tensor dict, as for a dynamic kernel) is not run then: npusim compiles per concrete shape, so the call
is recorded in kernel_meta and built for the arrays' shapes when the kernel is launched
(:mod:`te_compat.build.deferred`).
"""
from __future__ import annotations

import functools

from npusim.errors import TbeArgumentError
from te_compat.build.deferred import defer_build, has_unknown_dims
from te_compat.surface.context import OpContext, get_context

_operators: dict = {}  # op type -> entry function (the undecorated one)
_computes: dict = {}  # op type -> compute function
_generalizations: dict = {}  # op type -> param generalization function


def _check_op_type(op_type, decorator: str) -> None:
    if not isinstance(op_type, str) or not op_type:
        raise TbeArgumentError(f"{decorator} needs a non-empty op type string, got {op_type!r}")


def register_operator(op_type, pattern=None, trans_bool_to_s8=True, **kwargs):
    """Decorator of an op entry function: records it and gives it an op context while it runs."""
    del pattern, trans_bool_to_s8, kwargs
    _check_op_type(op_type, "register_operator")

    def decorator(func):
        _operators[op_type] = func

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            if has_unknown_dims(args, kwargs):
                return defer_build(op_type, wrapper, args, kwargs)
            if get_context() is not None:
                return func(*args, **kwargs)
            with OpContext("static") as context:
                context.set_op_type(op_type)
                return func(*args, **kwargs)

        return wrapper

    return decorator


def register_op_compute(op_type, op_mode="dynamic", support_fusion=True, **kwargs):
    """Decorator of an op compute function: records it and returns it unchanged."""
    del op_mode, support_fusion, kwargs
    _check_op_type(op_type, "register_op_compute")

    def decorator(func):
        _computes[op_type] = func
        return func

    return decorator


def register_param_generalization(op_type):
    """Decorator of a shape-generalization function (used by CANN's binary reuse; recorded only)."""
    _check_op_type(op_type, "register_param_generalization")

    def decorator(func):
        _generalizations[op_type] = func
        return func

    return decorator


def registered_operators() -> dict:
    """op type → entry function, for every ``register_operator`` seen so far."""
    return dict(_operators)


def registered_computes() -> dict:
    """op type → compute function, for every ``register_op_compute`` seen so far."""
    return dict(_computes)


def get_op_compute(op_type):
    """The compute function registered for ``op_type``."""
    if op_type not in _computes:
        raise TbeArgumentError(f"no compute function registered for op type {op_type!r}")
    return _computes[op_type]


__all__ = ["get_op_compute", "register_op_compute", "register_operator", "register_param_generalization",
           "registered_computes", "registered_operators"]
