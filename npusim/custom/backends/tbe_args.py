"""The arguments a TBE impl function receives, assembled as MindSpore's TBE compiler assembles them.

MindSpore's ``tbe_helper.get_input_output_args`` gives the impl one dict per required/optional input or output and,
for a reg-info ``dynamic`` one, a tuple of dicts (one per tensor of the call's list: MindSpore's
dyn_input_sizes).  An input whose reg info declares ``value_depend`` ("required"/"optional") carries its value:
``const_value`` (the elements, flattened, as Python numbers) and ``const_value_dtype`` (MindSpore's
``TbeJsonCreator::GenInputConstValue``).  npusim always has the call's data, so such an input's values are part of
the build signature (a new value builds a new kernel, as a new constant does in MindSpore).
"""
from __future__ import annotations

import numpy as np

from npusim.custom.reg_info import DYNAMIC, group_sizes, param_type, value_depends

#: the format MindSpore's TBE json writes for a DefaultFormat tensor (format and ori_format alike, whatever the rank)
DEFAULT_FORMAT = "NCHW"


def tensor_dict(shape, dtype: str, layout=None) -> dict:
    """The dict an impl function receives for one tensor (bool as "int8", like MindSpore); ``layout``: the
    :class:`~npusim.custom.backends.tbe_formats.Layout` a dtype_format row gives it (None: the default format)."""
    name = "int8" if dtype == "bool" else dtype
    if layout is not None:
        return {"shape": list(layout.shape), "dtype": name, "format": layout.format,
                "ori_shape": list(layout.ori_shape), "ori_format": layout.ori_format}
    return {"shape": list(shape), "dtype": name, "format": DEFAULT_FORMAT, "ori_shape": list(shape),
            "ori_format": DEFAULT_FORMAT}


def const_dict(array: np.ndarray) -> dict:
    """The dict of an input whose value the build depends on: :func:`tensor_dict` plus ``const_value`` and
    ``const_value_dtype``."""
    entry = tensor_dict(array.shape, array.dtype.name)
    entry["const_value"] = array.reshape(-1).tolist()
    entry["const_value_dtype"] = entry["dtype"]
    return entry


def _entries(reg, key: str) -> list:
    return list((reg or {}).get(key) or [])


def const_positions(reg, n_inputs: int, op_name: str) -> tuple:
    """Indices (among the call's ``n_inputs`` flat input arrays) whose reg-info input declares ``value_depend``."""
    entries = _entries(reg, "inputs")
    if not entries or not any(value_depends(e) for e in entries):
        return ()
    positions, start = [], 0
    for entry, size in zip(entries, group_sizes(op_name, entries, n_inputs)):
        if value_depends(entry):
            positions.extend(range(start, start + size))
        start += size
    return tuple(positions)


def _grouped(reg, key: str, items: list, op_name: str, what: str) -> list:
    """``items`` (one per tensor) grouped per reg-info entry: a dynamic entry's items as one tuple."""
    entries = _entries(reg, key)
    if not any(param_type(e) == DYNAMIC for e in entries):
        return list(items)
    grouped, start = [], 0
    for entry, size in zip(entries, group_sizes(op_name, entries, len(items), what)):
        chunk = items[start:start + size]
        grouped.append(tuple(chunk) if param_type(entry) == DYNAMIC else chunk[0])
        start += size
    return grouped + list(items[start:])


def impl_arguments(reg, op_name: str, arrays: list, out_shapes, out_dtypes, attr_values, layouts=None) -> list:
    """Positional arguments of the impl: input dicts (None for a left-out optional input), output dicts (grouped
    per reg info), then attribute values.  ``layouts``: (per input, per output) the non-default formats of the
    selected dtype_format row (:func:`~npusim.custom.backends.tbe_formats.row_layouts`)."""
    in_layouts, out_layouts = layouts or ([None] * len(arrays), [None] * len(out_shapes))
    consts = set(const_positions(reg, len(arrays), op_name))
    inputs = [const_dict(a) if i in consts else tensor_dict(a.shape, a.dtype.name, layout)
              for i, (a, layout) in enumerate(zip(arrays, in_layouts))]
    outputs = [tensor_dict(s, d, layout) for s, d, layout in zip(out_shapes, out_dtypes, out_layouts)]
    grouped = _grouped(reg, "inputs", inputs, op_name, "input")
    # trailing optional inputs the call left out (MatMul's bias) reach the impl as None, as MindSpore passes them
    grouped += [None] * max(0, len(_entries(reg, "inputs")) - len(grouped))
    return grouped + _grouped(reg, "outputs", outputs, op_name, "output") + list(attr_values)


def const_signature(reg, arrays: list, op_name: str) -> tuple:
    """The values of the const inputs (part of the build key: a new value builds a new kernel)."""
    return tuple((i, arrays[i].tobytes()) for i in const_positions(reg, len(arrays), op_name))


__all__ = ["DEFAULT_FORMAT", "const_dict", "const_positions", "const_signature", "impl_arguments", "tensor_dict"]
