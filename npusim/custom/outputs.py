"""Resolving ``out_shape`` / ``out_dtype`` (callable, value or None) into per-output shapes and dtype names."""
from __future__ import annotations

import numbers

from npusim.errors import OpTypeError, OpValueError
from npusim.frontend import dtype as mstype


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
    raise OpTypeError(f"For 'Custom' op '{op_name}', 'out_shape' must give a shape (list of ints) or a tuple of "
                      f"shapes, but got {value!r}")


def split_dtypes(op_name, value) -> list[str]:
    """One dtype or a tuple of dtypes → list of numpy dtype names."""
    items = list(value) if isinstance(value, (tuple, list)) else [value]
    try:
        return [mstype.np_name(item) for item in items]
    except OpTypeError:
        raise OpTypeError(f"For 'Custom' op '{op_name}', 'out_dtype' must give MindSpore dtypes, "
                          f"but got {value!r}") from None


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
