"""``mindspore.ops.Primitive`` / ``PrimitiveWithInfer`` / ``PrimitiveWithCheck`` as users subclass them.

A user-defined primitive (``class CusSquare(PrimitiveWithInfer)``) runs the implementation registered under its
name with ``op_info_register`` (:mod:`npusim.custom.primitive_kernel`), so these classes belong to the Custom layer;
npusim's built-in operators and ``ops.Custom`` derive from the front end's primitive base
(:class:`npusim.frontend.primitive.Primitive`).  As in MindSpore every operator is a ``Primitive``:
``isinstance(ops.Add(), mindspore.ops.Primitive)`` holds.
"""
from __future__ import annotations

from npusim.custom.primitive_kernel import call_registered
from npusim.frontend import primitive as base


class _PrimitiveType(type):
    """Makes :class:`Primitive` answer ``isinstance`` / ``issubclass`` for every npusim operator (built-in ops and
    ``ops.Custom`` derive from the front end's base, not from this class)."""

    def __instancecheck__(cls, obj) -> bool:
        if cls is Primitive:
            return isinstance(obj, base.Primitive)
        return type.__instancecheck__(cls, obj)

    def __subclasscheck__(cls, subclass) -> bool:
        if cls is Primitive:
            return isinstance(subclass, type) and issubclass(subclass, base.Primitive)
        return type.__subclasscheck__(cls, subclass)


class Primitive(base.Primitive, metaclass=_PrimitiveType):
    """Base of user primitives: calling one runs its registered implementation."""

    def __call__(self, *args):
        return call_registered(self, args)


class PrimitiveWithInfer(Primitive):
    """A user primitive with ``infer_shape`` / ``infer_dtype``."""


class PrimitiveWithCheck(Primitive):
    """A user primitive with ``check_shape`` / ``check_dtype`` (npusim runs it like PrimitiveWithInfer)."""


__all__ = ["Primitive", "PrimitiveWithCheck", "PrimitiveWithInfer"]
