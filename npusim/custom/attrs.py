"""Attribute values of a Custom call: matched to reg-info attrs, converted to their declared types.

Where a value comes from, as in MindSpore (whose Custom op reads every reg-info attribute from the primitive):

1. a call argument after the tensors, at the attribute's position in reg-info order (MindSpore converts such an
   argument into the attribute);
2. ``op.add_prim_attr(name, value)`` on the Custom op;
3. the reg info: an attr's ``value`` (aot, aicpu, akg, pyfunc: a fixed value that takes no call argument), then its
   ``default_value`` (for tbe, ``value`` is TBERegOp's allowed-values spec — ``"all"`` — and serves only when it
   names a value and no default is given).

A required attribute with none of these → :class:`MissingAttributeError` listing the ways to give one.  Values are
converted to the declared type; a value that does not convert exactly (an ``int`` attribute given 2.5) →
:class:`AttributeTypeError` naming the op and the attribute.
"""
from __future__ import annotations

import numbers

import numpy as np

from npusim.custom.backends.base import CallAttrs
from npusim.custom.reg_info import default_value, param_type
from npusim.errors import AttributeTypeError, MissingAttributeError, OpValueError

#: func_types whose backends read attributes by name (a missing optional attribute is left out, not None)
NAMED_ATTR_FUNC_TYPES = frozenset({"aot", "aicpu"})
_TRUE, _FALSE = ("true", "1"), ("false", "0")


def _plain(value):
    """numpy scalars, 0-d arrays and one-element tensors → the Python value they hold (other values unchanged)."""
    if isinstance(value, np.generic):
        return value.item()
    data = value.asnumpy() if hasattr(value, "asnumpy") else value
    if isinstance(data, np.ndarray) and data.size == 1 and data.ndim <= 1:
        return data.reshape(()).item()
    return value


def _to_int(value, where):
    if isinstance(value, str):
        try:
            return int(value.strip())
        except ValueError:
            raise AttributeTypeError(f"{where}: expected an int, got {value!r}") from None
    value = _plain(value)
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real) and float(value).is_integer():
        return int(value)
    raise AttributeTypeError(f"{where} is declared int, but got {value!r} ({type(value).__name__}): a value with "
                             f"a fractional part is not converted silently; pass an integer")


def _to_float(value, where):
    value = _plain(value)
    if isinstance(value, (numbers.Real, str)):
        try:
            return float(value)
        except ValueError:
            pass
    raise AttributeTypeError(f"{where} is declared float, but got {value!r} ({type(value).__name__})")


def _to_bool(value, where):
    value = _plain(value)
    if isinstance(value, str) and value.strip().lower() in _TRUE + _FALSE:
        return value.strip().lower() in _TRUE
    if isinstance(value, numbers.Real) and value in (0, 1):
        return bool(value)
    raise AttributeTypeError(f"{where} is declared bool, but got {value!r} ({type(value).__name__})")


def _to_str(value, where):
    if isinstance(value, str):
        return value
    raise AttributeTypeError(f"{where} is declared str, but got {value!r} ({type(value).__name__})")


_SCALAR = {"int": _to_int, "float": _to_float, "bool": _to_bool, "str": _to_str}


def _items(value):
    """A list attribute's items: a sequence, an array, a comma-separated string, or one scalar."""
    if isinstance(value, str):
        return [v.strip() for v in value.replace("[", "").replace("]", "").split(",") if v.strip()]
    if hasattr(value, "asnumpy"):
        value = value.asnumpy()
    if isinstance(value, np.ndarray):
        return value.tolist() if value.ndim else [value.item()]
    if isinstance(value, (list, tuple)):
        return list(value)
    return [value]


def convert_attr(value, value_type: str | None, where: str):
    """Convert ``value`` to the reg-info ``type`` (int, float, str, bool, listInt, listFloat, listStr, listBool;
    other types — listListInt, all, none — pass through).  None (an optional attribute left unset) stays None."""
    if value is None or value_type is None or value_type == "all":
        return value
    convert = _SCALAR.get(value_type)
    if convert is not None:
        return convert(value, where)
    if value_type.startswith("list"):
        item_convert = _SCALAR.get(value_type[4:].lower())
        items = _items(value)
        return [item_convert(item, where) for item in items] if item_convert else items
    return value


def fixed_value(entry: dict, func_type: str | None):
    """The reg-info ``value`` of an attr, when it fixes the attr's value so no call argument binds to it (else None).

    For func_type "tbe" MindSpore feeds every attr from the call's inputs: ``value`` there is TBERegOp's allowed-values
    spec (``"all"``, which MindSpore itself fills in when missing), so it only serves when the call passes nothing.
    """
    return None if func_type == "tbe" else entry.get("value")


def _fallback_value(entry: dict, func_type: str | None):
    """The reg-info value used when nothing else gives one: default_value (tbe: else a ``value`` other than "all")."""
    value = default_value(entry)
    if value is None and func_type == "tbe":
        value = entry.get("value")
        if isinstance(value, str) and value.strip().lower() == "all":
            value = None
    return value


def missing_attr_error(op_name: str, entry: dict, names: list, n_tensors: int | None) -> MissingAttributeError:
    """The error for a required attribute with no value, listing every way to give one."""
    name, kind = entry.get("name"), entry.get("type", "all")
    tensors = f"the {n_tensors} tensor input(s)" if n_tensors is not None else "the tensor inputs"
    return MissingAttributeError(
        f"Custom op '{op_name}': attribute '{name}' is required ({kind}) but has no value. Give it one of these ways: "
        f"as a call argument after {tensors} (attributes bind in reg-info order: {', '.join(map(str, names))}); "
        f"on the op with op.add_prim_attr('{name}', value); or in the reg info, with a default_value "
        f"(.attr('{name}', 'required', '{kind}', default_value=...)) or a fixed value= for aot/aicpu/akg ops")


def bind_attrs(op_name: str, reg: dict | None, values: tuple, func_type: str | None = None,
               prim_attrs: dict | None = None, n_tensors: int | None = None) -> CallAttrs:
    """Call-time attribute values → CallAttrs in reg-info order (see the module docstring for the sources).

    ``prim_attrs``: the op's primitive attributes (``add_prim_attr``).  A missing optional attribute is left out
    for backends that read attributes by name (aot, aicpu) and is None for the positional ones when a later
    attribute has a value.  Leftover call arguments → OpValueError.
    """
    entries = (reg or {}).get("attr") or []
    if not entries:
        return CallAttrs(tuple(f"attr{i}" for i in range(len(values))), tuple(values))
    prim_attrs = prim_attrs or {}
    all_names = [entry.get("name", f"attr{i}") for i, entry in enumerate(entries)]
    names, out = [], []
    remaining = list(values)
    for entry, name in zip(entries, all_names):
        fixed = fixed_value(entry, func_type)
        if fixed is None and remaining:
            value = remaining.pop(0)
        elif name in prim_attrs:
            value = prim_attrs[name]
        elif fixed is not None:
            value = fixed
        else:
            value = _fallback_value(entry, func_type)
            if value is None and param_type(entry) == "required":
                raise missing_attr_error(op_name, entry, all_names, n_tensors)
            if value is None and func_type in NAMED_ATTR_FUNC_TYPES:
                continue
        names.append(name)
        out.append(convert_attr(value, entry.get("type"), f"Custom op '{op_name}', attribute '{name}'"))
    while out and out[-1] is None:  # unset optional attributes at the end: the impl's own defaults apply
        names.pop()
        out.pop()
    if remaining:
        raise OpValueError(f"Custom op '{op_name}': {len(remaining)} more argument(s) than inputs and attributes "
                           f"in its registration info: {remaining!r}")
    return CallAttrs(tuple(names), tuple(out))
