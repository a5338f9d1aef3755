"""Resolving ``out_shape`` / ``out_dtype`` (callable, value or None) into per-output shapes and dtype names."""
from __future__ import annotations

import numbers

import numpy as np

from npusim.errors import OpTypeError, OpValueError, OutputSizeError, OutputSpecError
from npusim.frontend import dtype as mstype

#: the largest byte size an output may have: a size must fit the host's signed size type (numpy's limit, and the
#: int64 fields an aicpu call plan carries)
MAX_OUTPUT_NBYTES = int(np.iinfo(np.intp).max)
#: the negative dims an out_shape may hold: -1 (a dynamic dim), -2 (a dynamic rank), as MindSpore writes them
DYNAMIC_DIMS = (-1, -2)


def check_kinds(out_shape, out_dtype):
    """Constructor-time check of the argument kinds, with MindSpore's messages."""
    if out_shape is not None and not (callable(out_shape) or isinstance(out_shape, (tuple, list))):
        raise OpTypeError(f"For 'Custom', 'out_shape' must be one of [tuple, list, function, None], "
                          f"but got {type(out_shape)}")
    if out_dtype is not None and not (callable(out_dtype) or isinstance(out_dtype, (tuple, list, mstype.Type))):
        if not isinstance(out_dtype, str):
            raise OpTypeError(f"For 'Custom', 'out_dtype' must be one of [mindspore.dtype, tuple, list, function, "
                              f"None], but got {type(out_dtype)}")


def _is_shape(value) -> bool:
    return isinstance(value, (tuple, list)) and all(isinstance(v, numbers.Integral) for v in value)


def split_shapes(op_name, value) -> list[tuple]:
    """One shape or a tuple of shapes → list of shapes."""
    if hasattr(value, "shape") and not isinstance(value, (tuple, list)):
        return [tuple(value.shape)]
    if _is_shape(value):
        return [tuple(int(v) for v in value)]
    if isinstance(value, (tuple, list)) and all(_is_shape(v) for v in value):
        return [tuple(int(x) for x in v) for v in value]
    raise OutputSpecError(f"For 'Custom' op '{op_name}', 'out_shape' must give a shape (list of ints) or a tuple "
                          f"of shapes, but got {value!r}")


def _dtype_name(op_name, item, index, value) -> str:
    if item is None or (isinstance(item, mstype.Type) and item.np_dtype is None):
        raise OutputSpecError(f"For 'Custom' op '{op_name}', 'out_dtype' gives {item!r} for output {index} "
                              f"(from {value!r}): every output needs a MindSpore dtype such as mindspore.float32; "
                              f"an out_dtype function must return one (or a tuple of them), not None")
    try:
        return mstype.np_name(item)
    except OpTypeError:
        raise OutputSpecError(f"For 'Custom' op '{op_name}', 'out_dtype' must give MindSpore dtypes, "
                              f"but got {value!r}") from None


def split_dtypes(op_name, value) -> list[str]:
    """One dtype or a tuple of dtypes → list of numpy dtype names (None, or a type with no data such as
    mindspore.string, is an OutputSpecError naming the op)."""
    items = list(value) if isinstance(value, (tuple, list)) else [value]
    return [_dtype_name(op_name, item, index, value) for index, item in enumerate(items)]


def _itemsize(dtype) -> int:
    try:
        return np.dtype(dtype).itemsize
    except TypeError:  # a name numpy lacks (bfloat16): count it as one byte, the size check stays a lower bound
        return 1


def check_sizes(op_name, shapes, dtypes) -> None:
    """Every output shape can exist: dims are ints ≥ 0 (or -1 / -2 for a dynamic output) and the byte size fits
    :data:`MAX_OUTPUT_NBYTES` — checked here, before any backend allocates (numpy would say "array is too big", an
    aicpu plan could not even encode the size)."""
    for index, (shape, dtype) in enumerate(zip(shapes, dtypes)):
        bad = [d for d in shape if d < 0 and d not in DYNAMIC_DIMS]
        if bad:
            raise OutputSizeError(f"For 'Custom' op '{op_name}', output {index} has shape {list(shape)}: a dim must "
                                  f"be >= 0 (or -1 / -2 for a dynamic output), but got {bad[0]}")
        nbytes = _itemsize(dtype)
        for dim in shape:
            nbytes *= max(int(dim), 1)
        if nbytes > MAX_OUTPUT_NBYTES:
            raise OutputSizeError(f"For 'Custom' op '{op_name}', output {index} of shape {list(shape)} and dtype "
                                  f"{dtype} would take {nbytes} bytes, more than any array can hold "
                                  f"({MAX_OUTPUT_NBYTES} bytes): check out_shape")


def resolve(op_name, out_shape, out_dtype, call_shapes, call_dtypes, call_attrs):
    """Shapes and dtype names of the outputs; None for either when the user gave None (backend infers).

    Callables get one argument per call argument: shapes as lists and dtypes as MindSpore types for tensors, the
    raw value for attribute arguments.
    """
    shapes = dtypes = None
    if out_dtype is not None:
        value = out_dtype(*call_dtypes, *call_attrs) if callable(out_dtype) else out_dtype
        if isinstance(value, (tuple, list)) and len(value) == 0:
            dtypes = []
        else:
            dtypes = split_dtypes(op_name, value)
    if out_shape is not None:
        value = out_shape(*call_shapes, *call_attrs) if callable(out_shape) else out_shape
        if dtypes == [] and isinstance(value, (tuple, list)) and len(value) == 0:
            shapes = []
        else:
            shapes = split_shapes(op_name, value)
            if dtypes is not None and len(dtypes) == 1 and len(shapes) > 1 and not _is_shape(value):
                dtypes = dtypes * len(shapes)
    if shapes is not None and dtypes is not None and len(shapes) != len(dtypes):
        raise OpValueError(f"For 'Custom' op '{op_name}', out_shape gives {len(shapes)} outputs but out_dtype "
                           f"gives {len(dtypes)}")
    return shapes, dtypes
