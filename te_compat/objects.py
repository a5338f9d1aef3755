"""How te_compat's internals read TVM objects: the TVM object behind a surface wrapper, and dtype names.

The op-file surface (``te``, ``tbe``, ``topi``, ``impl.util.platform_adapter``) hands user code thin wrappers
(:mod:`te_compat.surface.tvm_objects`) whose ``dtype`` is a ``str``, as CANN's TVM gave it.  Everything below the
surface (``te_compat.dsl``, ``schedule``, ``build``, ``fallback``, ``graph``) works on TVM 0.27's own objects:

* :func:`raw` / :func:`raw_tree` turn a wrapper (or a list / tuple / dict holding wrappers) back into TVM objects;
  internal entry points a user can call directly apply them, so they accept wrappers too.
* :func:`dtype_of` reads a dtype name from a tensor, tensor slice, expression, ``Var`` or ``IterVar`` (wrapped or
  not), without relying on a ``dtype`` attribute (TVM 0.27 gives tensors a ``PrimType`` and prim expressions none).

No TVM class is modified anywhere in npusim.
"""
from __future__ import annotations

import functools

import tvm
from tvm.runtime import ObjectConvertible

from npusim.errors import TbeTypeError


class Wrapper(ObjectConvertible):
    """Base of the surface wrappers: ``_raw`` is the wrapped TVM object (see :mod:`te_compat.surface.tvm_objects`).

    A wrapper converts itself wherever TVM converts arguments: TVM FFI calls (``__tvm_ffi_object__``) and
    ``tvm.runtime.convert`` (it is an ``ObjectConvertible``)."""

    __slots__ = ("_raw",)

    def __init__(self, raw_object):
        object.__setattr__(self, "_raw", raw_object)

    def asobject(self):
        """The TVM ``Object`` this wrapper stands for (a tensor slice or ``==`` result: the expression it makes)."""
        value = self._raw
        return value.asobject() if isinstance(value, ObjectConvertible) else value

    def __tvm_ffi_object__(self):
        return self.asobject()


def raw(value):
    """The TVM object behind a surface wrapper; any other value unchanged."""
    return value._raw if isinstance(value, Wrapper) else value


def raw_tree(value):
    """``value`` with every wrapper replaced by its TVM object, also inside (nested) lists, tuples and dicts.
    A container is rebuilt only when something in it changed, so unwrapped values keep their identity."""
    if isinstance(value, Wrapper):
        return value._raw
    kind = type(value)
    if kind is list or kind is tuple:
        items = [raw_tree(item) for item in value]
        if all(new is old for new, old in zip(items, value)):
            return value
        return kind(items)
    if kind is dict:
        pairs = {key: raw_tree(item) for key, item in value.items()}
        if all(pairs[key] is item for key, item in value.items()):
            return value
        return pairs
    return value


def accepts_wrapped(func):
    """``func`` taking surface wrappers as well: its arguments pass through :func:`raw_tree` first."""

    @functools.wraps(func)
    def call(*args, **kwargs):
        return func(*raw_tree(args), **raw_tree(kwargs))

    return call


def dtype_of(value) -> str:
    """The dtype name (``"float16"``) of a tensor, tensor slice, prim expression (``"handle"`` for a pointer),
    ``Var`` (a scalar var's own dtype, a buffer var's element dtype), ``IterVar``, ``PrimType`` or ``DataType``
    — wrapped or raw.  Anything else (a plain ``str`` included) raises :class:`~npusim.errors.TbeTypeError`."""
    value = raw(value)
    if isinstance(value, (tvm.te.Tensor, tvm.te.TensorSlice)):
        return str(value.dtype)
    if isinstance(value, ObjectConvertible):  # an ``a == b`` result: the comparison it stands for
        value = value.asobject()
    if isinstance(value, tvm.tirx.IterVar):
        value = value.var
    if isinstance(value, (tvm.ir.PrimType, tvm.DataType)):
        return str(value)
    ty = getattr(value, "ty", None) if isinstance(value, tvm.ir.expr.Expr) else None
    if isinstance(ty, tvm.ir.PrimType):
        return str(ty)
    if isinstance(ty, tvm.ir.PointerType):
        return "handle"  # old TVM's name for pointer-typed expressions
    if isinstance(value, tvm.ir.Var):
        return str(value.dtype)  # a buffer Var: TVM's own property gives the element dtype
    raise TbeTypeError(f"{type(value).__name__} {value!r} has no dtype (expected a tensor, an expression or a var)")


__all__ = ["Wrapper", "accepts_wrapped", "dtype_of", "raw", "raw_tree"]
