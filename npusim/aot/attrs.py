"""Python attribute values → the kinds an aot kernel reads with ``extra->Attr<T>(name)``.

Kinds and the ``T`` that reads them (see npusim/aot/csrc/extra_impl.h for the accepted conversions):

==========  ==========================================  ====================================
kind        Python value                                C++ ``T``
==========  ==========================================  ====================================
bool        bool / numpy.bool_                          bool (int64_t also accepts it)
int         int / numpy integer (int64 range)           int64_t (float also accepts it)
float       float / numpy floating                      float
str         str                                         std::string
ints        list/tuple/1-D array of ints                std::vector<int64_t> (or <float>)
floats      list/tuple/1-D array with a float           std::vector<float>
ints2d      list of lists of ints                       std::vector<std::vector<int64_t>>
floats2d    list of lists with a float                  std::vector<std::vector<float>>
==========  ==========================================  ====================================

``None`` values are left out (``HasAttr`` is then false).  An empty list is an empty ``ints``.
"""
from __future__ import annotations

import numpy as np

from npusim.errors import OpTypeError, OpValueError

ATTR_KINDS = ("bool", "int", "float", "str", "ints", "floats", "ints2d", "floats2d")

_INT64_MIN = -(1 << 63)
_INT64_MAX = (1 << 63) - 1


def encode_attrs(names, values, op_name: str) -> tuple:
    """``((name, kind, payload), ...)`` for the non-None values, in order; payloads are hashable."""
    return tuple((name,) + _encode_value(name, value, op_name)
                 for name, value in zip(names, values) if value is not None)


def fixed_reg_info_attrs(reg_info, op_name: str) -> tuple:
    """Encoded attributes whose value the registration info fixes (``.attr(..., value=X)``)."""
    if not isinstance(reg_info, dict):
        return ()
    entries = [item for item in reg_info.get("attr") or () if isinstance(item, dict)]
    fixed = [(item["name"], item["value"]) for item in entries
             if isinstance(item.get("name"), str) and item.get("value") is not None]
    return encode_attrs([name for name, _ in fixed], [value for _, value in fixed], op_name)


def _encode_value(name: str, value, op_name: str) -> tuple:
    if isinstance(value, np.ndarray):
        value = value.tolist()
    if isinstance(value, (bool, np.bool_)):
        return "bool", bool(value)
    if isinstance(value, (int, np.integer)):
        return "int", _checked_int(name, value, op_name)
    if isinstance(value, (float, np.floating)):
        return "float", float(value)
    if isinstance(value, str):
        return "str", value
    if isinstance(value, (list, tuple)):
        return _encode_list(name, value, op_name)
    raise OpTypeError(f"Custom op '{op_name}': attribute '{name}' is a {type(value).__name__}; aot kernels "
                      "read bool, int, float, str and (2-D) lists of int or float")


def _encode_list(name: str, items, op_name: str) -> tuple:
    if items and all(isinstance(item, (list, tuple, np.ndarray)) for item in items):
        rows = [_number_row(name, list(np.asarray(row).tolist()) if isinstance(row, np.ndarray) else row,
                            op_name) for row in items]
        is_float = any(kind == "floats" for kind, _ in rows)
        if is_float:
            return "floats2d", tuple(tuple(float(x) for x in row) for _, row in rows)
        return "ints2d", tuple(row for _, row in rows)
    return _number_row(name, items, op_name)


def _number_row(name: str, items, op_name: str) -> tuple:
    """("ints", values) or ("floats", values) for a flat list of numbers."""
    for item in items:
        if not isinstance(item, (bool, int, float, np.bool_, np.integer, np.floating)):
            raise OpTypeError(f"Custom op '{op_name}': attribute '{name}' holds a {type(item).__name__} in a "
                              "list; aot kernels read lists of int or float only")
    if any(isinstance(item, (float, np.floating)) for item in items):
        return "floats", tuple(float(item) for item in items)
    return "ints", tuple(_checked_int(name, item, op_name) for item in items)


def _checked_int(name: str, value, op_name: str) -> int:
    number = int(value)
    if not _INT64_MIN <= number <= _INT64_MAX:
        raise OpValueError(f"Custom op '{op_name}': attribute '{name}' = {number} does not fit in int64_t")
    return number
