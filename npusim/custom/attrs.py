"""Attribute arguments of a Custom call: matched to reg-info attrs, converted to their declared types."""
from __future__ import annotations

from npusim.custom.backends.base import CallAttrs
from npusim.custom.reg_info import default_value, param_type
from npusim.errors import OpTypeError, OpValueError

_SCALAR = {"int": int, "float": float, "str": str, "bool": None}


def _to_bool(value, where):
    if isinstance(value, str):
        if value.lower() in ("true", "1"):
            return True
        if value.lower() in ("false", "0"):
            return False
        raise OpValueError(f"{where}: {value!r} is not a bool")
    return bool(value)


def _to_scalar(value, kind, where):
    if kind == "bool":
        return _to_bool(value, where)
    try:
        return _SCALAR[kind](value)
    except (TypeError, ValueError):
        raise OpTypeError(f"{where}: expected a {kind}, got {value!r}") from None


def convert_attr(value, value_type: str | None, where: str):
    """Convert ``value`` to the reg-info ``type`` (int, float, str, bool, listInt, listFloat, listStr, listBool)."""
    if value_type is None or value_type == "all":
        return value
    if value_type in _SCALAR:
        return _to_scalar(value, value_type, where)
    if value_type.startswith("list"):
        kind = value_type[4:].lower()
        if isinstance(value, str):
            value = [v for v in value.replace("[", "").replace("]", "").split(",") if v.strip()]
        if not isinstance(value, (list, tuple)):
            value = [value]
        if kind in _SCALAR:
            return [_to_scalar(v.strip() if isinstance(v, str) else v, kind, where) for v in value]
        return list(value)
    return value


def fixed_value(entry: dict, func_type: str | None):
    """The reg-info ``value`` of an attr, when it fixes the attr's value so no call argument binds to it (else None).

    For func_type "tbe" MindSpore feeds every attr from the call's inputs: ``value`` there is TBERegOp's allowed-values
    spec (``"all"``, which MindSpore itself fills in when missing), so it only serves when the call passes nothing.
    """
    return None if func_type == "tbe" else entry.get("value")


def _tbe_value_fallback(entry: dict):
    value = entry.get("value")
    return None if value is None or (isinstance(value, str) and value.strip().lower() == "all") else value


def bind_attrs(op_name: str, reg: dict | None, values: tuple, func_type: str | None = None) -> CallAttrs:
    """Call-time attribute values → CallAttrs in reg-info order.

    Attrs declared with ``value=`` are fixed (aot, aicpu ...); the others take the call's trailing arguments in
    order, then their default value.  For func_type "tbe" every attr takes the call's arguments (see
    :func:`fixed_value`).  A required attr with no value → OpValueError naming it.
    """
    entries = (reg or {}).get("attr") or []
    if not entries:
        return CallAttrs(tuple(f"attr{i}" for i in range(len(values))), tuple(values))
    names, out = [], []
    remaining = list(values)
    for entry in entries:
        name = entry.get("name", f"attr{len(names)}")
        where = f"Custom op '{op_name}', attribute '{name}'"
        fixed = fixed_value(entry, func_type)
        default = default_value(entry)
        if default is None and func_type == "tbe":
            default = _tbe_value_fallback(entry)
        if fixed is not None:
            value = fixed
        elif remaining:
            value = remaining.pop(0)
        elif default is not None:
            value = default
        elif param_type(entry) == "required":
            raise OpValueError(f"{where} is required but was neither passed nor given a default value")
        else:
            continue
        names.append(name)
        out.append(convert_attr(value, entry.get("type"), where))
    if remaining:
        raise OpValueError(f"Custom op '{op_name}': {len(remaining)} more argument(s) than inputs and attributes "
                           f"in its registration info: {remaining!r}")
    return CallAttrs(tuple(names), tuple(out))
