"""``tvm.placeholder(..., attrs={...})`` as CANN's TVM keeps it: the attrs ride on the placeholder's operation.

CANN op files pass fusion metadata this way (``attrs={"ori_shape": ..., "format": "ND"}``), read it back as
``tensor.op.attrs["format"].value`` and assign to it (``tensor.op.attrs["format"] = "FRACTAL_NZ"``).  TVM 0.27's
PlaceholderOp takes an attrs map (immutable): the values given at creation are stored there (strings, ints,
floats, lists), so npusim's DSL reads them from any view of the tensor; the op file's own handle (the tensor
``placeholder`` returned) also carries a mutable copy, which assignments change.  Values read back have CANN's
TVM forms: a string has ``.value`` (a ``str`` subclass), an int is an ``IntImm``, a list a list of those.
"""
from __future__ import annotations

from numbers import Integral, Real

import tvm
from tvm import te

from te_compat.surface.tvm_objects import SurfaceNode, SurfaceTensor


class AttrString(str):
    """A string attribute value as CANN's TVM gives it (a StringImm: ``.value`` is the text)."""

    @property
    def value(self) -> str:
        return str(self)


def attr_value(value):
    """``value`` in the form CANN's TVM reads back from an attrs map."""
    if isinstance(value, AttrString) or isinstance(value, (tvm.tirx.IntImm, tvm.tirx.FloatImm)):
        return value
    if isinstance(value, str):
        return AttrString(value)
    if isinstance(value, bool) or isinstance(value, Integral):
        return tvm.tirx.IntImm("int64" if abs(int(value)) >= 2 ** 31 else "int32", int(value))
    if isinstance(value, Real):
        return tvm.tirx.FloatImm("float32", float(value))
    if isinstance(value, (list, tuple)) or type(value).__name__ == "Array":
        return [attr_value(v) for v in value]
    return value


def _tvm_value(value):
    """``value`` as TVM's attrs map stores it (strings and numbers plain, lists as lists)."""
    if isinstance(value, AttrString):
        return str(value)
    if isinstance(value, (list, tuple)):
        return [_tvm_value(v) for v in value]
    return value


class AttrDict(dict):
    """A placeholder's attrs: values assigned are kept in CANN's TVM form (see :func:`attr_value`)."""

    def __setitem__(self, key, value):
        super().__setitem__(str(key), attr_value(value))


class PlaceholderOpView(SurfaceNode):
    """The ``op`` of an attributed placeholder: ``attrs`` is the mutable dict the tensor handle carries."""

    __slots__ = ("_attrs",)

    def __init__(self, raw_op, attrs: dict):
        super().__init__(raw_op)
        object.__setattr__(self, "_attrs", attrs)

    @property
    def attrs(self) -> dict:
        return self._attrs


class AttributedTensor(SurfaceTensor):
    """A placeholder made with ``attrs``: ``tensor.op.attrs`` is a dict of CANN-form values, assignable."""

    __slots__ = ("_attrs",)

    def __init__(self, raw_tensor, attrs: dict):
        super().__init__(raw_tensor)
        object.__setattr__(self, "_attrs", attrs)

    @property
    def op(self) -> PlaceholderOpView:
        return PlaceholderOpView(self._raw.op, self._attrs)


def attributed_placeholder(shape: tuple, dtype: str, name: str, attrs) -> SurfaceTensor:
    """A placeholder of ``shape`` / ``dtype`` whose operation stores ``attrs`` (a dict; None: no attrs)."""
    if not attrs:
        return SurfaceTensor(te.placeholder(shape, dtype, name))
    if not isinstance(attrs, dict):
        from npusim.errors import TbeTypeError
        raise TbeTypeError(f"tvm.placeholder {name!r}: attrs must be a dict, got {type(attrs).__name__}")
    stored = {str(k): _tvm_value(attr_value(v)) for k, v in attrs.items()}
    op = te.PlaceholderOp(name, "", stored, list(shape), dtype)
    return AttributedTensor(op.output(0), AttrDict({str(k): attr_value(v) for k, v in attrs.items()}))


__all__ = ["AttrDict", "AttrString", "AttributedTensor", "attr_value", "attributed_placeholder"]
