"""``impl.util.util_select_op_base``: what op files' ``op_select_format`` and ``get_op_support_info`` return.

CANN's compiler calls those two optional entry points of an op file to ask which dtype/format rows the op offers
and how its inputs may be sliced for fusion.  npusim does no format selection or fusion slicing (Custom ops take their
rows from the reg info), but the functions build and return the same JSON text, so op files that import these
helpers load and their answers can be inspected in tests.

    input0 = gen_param(classify="input0", name="x", datatype="float16,float", format="ND,ND")
    get_dynamic_param_in_json([input0, output0])        # '{"input0": {"name": "x", "dtype": ..., "format": ...}}'

    split = [[SplitInput([0, [0], [-1], [-1]]), SplitOutput([0, [0]])]]
    get_op_cal_info(split, None, 0, 0)                 # '{"_op_slice_info": {"splitMaps": [...], ...}}'
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Optional

from npusim.errors import TbeArgumentError


@dataclass(frozen=True)
class Element:
    """One parameter row of op_select_format: its name, comma-separated dtypes and formats."""

    name: str
    datatype: str
    format: str
    unknownshape_format: Optional[str] = None


@dataclass(frozen=True)
class ParamItem:
    """A parameter description: ``classify`` ("input0", "output0" ...) and its :class:`Element`."""

    classify: str
    element: Element


def _columns(text, what: str, name: str) -> int:
    if not isinstance(text, str) or not text:
        raise TbeArgumentError(f"gen_param: {what} of parameter {name!r} must be a non-empty comma-separated string, "
                               f"got {text!r}")
    return len(text.split(","))


def gen_param(classify, name, datatype, format, unknownshape_format=None) -> ParamItem:  # noqa: A002 (CANN's name)
    """One parameter of ``op_select_format``: the dtype and format lists must have the same number of entries."""
    if not isinstance(classify, str) or not classify:
        raise TbeArgumentError(f"gen_param: classify must be a name such as 'input0', got {classify!r}")
    n_types, n_formats = _columns(datatype, "datatype", name), _columns(format, "format", name)
    if n_types != n_formats:
        raise TbeArgumentError(f"gen_param: parameter {name!r} lists {n_types} dtype(s) but {n_formats} format(s)")
    if unknownshape_format is not None and _columns(unknownshape_format, "unknownshape_format", name) != n_types:
        raise TbeArgumentError(f"gen_param: parameter {name!r}: unknownshape_format must list {n_types} entries")
    return ParamItem(classify, Element(name, datatype, format, unknownshape_format))


def get_dynamic_param_in_json(param_desc_list) -> str:
    """The JSON text ``op_select_format`` returns: ``{classify: {name, dtype, format[, unknownshape_format]}}``."""
    described = {}
    for item in param_desc_list:
        if not isinstance(item, ParamItem):
            raise TbeArgumentError(f"get_dynamic_param_in_json expects gen_param(...) results, got "
                                   f"{type(item).__name__}")
        entry = {"name": item.element.name, "dtype": item.element.datatype, "format": item.element.format}
        if item.element.unknownshape_format is not None:
            entry["unknownshape_format"] = item.element.unknownshape_format
        described[item.classify] = entry
    return json.dumps(described, indent=4)


def _int_list(value, what: str) -> list:
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, int) for v in value):
        raise TbeArgumentError(f"{what} must be a list of ints, got {value!r}")
    return list(value)


class SplitInput:
    """Inputs that may be sliced: each argument ``[input_index, [axes], [head_overlap], [tail_overlap]]``."""

    def __init__(self, *entries):
        self.entries = []
        for entry in entries:
            if not isinstance(entry, (list, tuple)) or len(entry) != 4 or not isinstance(entry[0], int):
                raise TbeArgumentError(f"SplitInput: each entry is [index, [axes], [head_overlap], [tail_overlap]], "
                                       f"got {entry!r}")
            self.entries.append({"idx": entry[0], "axis": _int_list(entry[1], "SplitInput axes"),
                                 "headOverLap": _int_list(entry[2], "SplitInput head overlap"),
                                 "tailOverLap": _int_list(entry[3], "SplitInput tail overlap")})


class SplitOutput:
    """Outputs sliced along: each argument ``[output_index, [axes]]``."""

    def __init__(self, *entries):
        self.entries = []
        for entry in entries:
            if not isinstance(entry, (list, tuple)) or len(entry) != 2 or not isinstance(entry[0], int):
                raise TbeArgumentError(f"SplitOutput: each entry is [index, [axes]], got {entry!r}")
            self.entries.append({"idx": entry[0], "axis": _int_list(entry[1], "SplitOutput axes")})


class ReduceInput(SplitOutput):
    """Inputs of a reduce map: each argument ``[input_index, [axes]]``."""


class ReduceOutput:
    """Outputs of a reduce map: each argument ``[output_index, reduce_type, is_atomic]``."""

    def __init__(self, *entries):
        self.entries = []
        for entry in entries:
            if not isinstance(entry, (list, tuple)) or len(entry) != 3 or not isinstance(entry[0], int):
                raise TbeArgumentError(f"ReduceOutput: each entry is [index, reduce_type, is_atomic], got {entry!r}")
            self.entries.append({"idx": entry[0], "reduceType": entry[1], "isAtomic": bool(entry[2])})


def _maps(pairs, first: str, second: str, kinds: tuple) -> list:
    result = []
    for pair in pairs or []:
        if not isinstance(pair, (list, tuple)) or len(pair) != 2 or not isinstance(pair[0], kinds[0]) \
                or not isinstance(pair[1], kinds[1]):
            raise TbeArgumentError(f"get_op_cal_info: each map is [{kinds[0].__name__}(...), "
                                   f"{kinds[1].__name__}(...)], got {pair!r}")
        result.append({first: pair[0].entries, second: pair[1].entries})
    return result


def get_op_cal_info(axis_split_list, axis_reduce_list=None, l1_fusion_enable=0, min_tbe_l1_space=0) -> str:
    """The JSON text ``get_op_support_info`` returns (CANN's ``_op_slice_info``)."""
    info = {"splitMaps": _maps(axis_split_list, "inputList", "outputList", (SplitInput, SplitOutput)),
            "reduceMaps": _maps(axis_reduce_list, "inputList", "outputList", (ReduceInput, ReduceOutput)),
            "l1FusionEnable": int(l1_fusion_enable), "minTbeL1Space": int(min_tbe_l1_space)}
    return json.dumps({"_op_slice_info": info})


__all__ = ["Element", "ParamItem", "ReduceInput", "ReduceOutput", "SplitInput", "SplitOutput", "gen_param",
           "get_dynamic_param_in_json", "get_op_cal_info"]
