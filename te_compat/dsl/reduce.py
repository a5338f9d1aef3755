"""Reductions: sum / reduce_sum, reduce_max, reduce_min, reduce_prod, tuple_sum (tag ``reduce_<op>``).

attrs: ``axes`` (sorted, normalised over the input's rank) and ``keepdims``.  Reducing every axis without keepdims
gives shape [1], as TBE does.  Auto-cast: sum uses vcadd's dtypes; max / min / prod use the element-wise vmax /
vmin / vmul dtypes (the reduction is a fold of those; the scheduler finishes a row with vcmax/vcmin where it can).
"""
from __future__ import annotations

from tvm import te

from npusim.errors import TbeArgumentError

from te_compat.graph import reduce_tag
from te_compat.dsl.cast import autocast
from te_compat.dsl.checks import normalize_axes, require_tensor, static_shape
from te_compat.dsl.nodes import make_node, prod_reducer

_OPCODES = {"sum": "vcadd", "max": "vmax", "min": "vmin", "prod": "vmul"}


def _reducer(op: str):
    return {"sum": te.sum, "max": te.max, "min": te.min}.get(op) or prod_reducer()


def reduce_shape(shape, axes, keepdims: bool) -> tuple:
    """The output shape of reducing ``axes`` of ``shape``."""
    if keepdims:
        return tuple(1 if pos in axes else dim for pos, dim in enumerate(shape))
    kept = tuple(dim for pos, dim in enumerate(shape) if pos not in axes)
    return kept or (1,)


def _reduce(func: str, raw_tensor, axis, keepdims, op: str):
    x = require_tensor(func, raw_tensor)
    shape = static_shape(func, x)
    axes = normalize_axes(func, axis, len(shape))
    if not isinstance(keepdims, (bool, int)) or keepdims not in (0, 1):
        raise TbeArgumentError(f"{func}: keepdims must be a bool, got {keepdims!r}")
    keepdims = bool(keepdims)
    _, (x,) = autocast(func, (_OPCODES[op],), x)
    reducer = _reducer(op)
    out_shape = reduce_shape(shape, axes, keepdims)

    def body(*index):
        raxes = [te.reduce_axis((0, shape[pos]), name=f"k{pos}") for pos in axes]
        by_axis = dict(zip(axes, raxes))
        kept = iter(index)
        source = []
        for pos in range(len(shape)):
            if pos in by_axis:
                source.append(by_axis[pos])
                if keepdims:
                    next(kept)
            else:
                source.append(next(kept))
        return reducer(x(*source), axis=raxes)
    return make_node(out_shape, body, reduce_tag(op), {"axes": list(axes), "keepdims": keepdims}, prefix=op)


def sum(raw_tensor, axis, keepdims=False):  # noqa: A001  (TBE's name)
    """Sum over ``axis`` (int, list, or None = all)."""
    return _reduce("sum", raw_tensor, axis, keepdims, "sum")


def reduce_sum(raw_tensor, axis, keepdims=False):
    """Sum over ``axis`` (tbe.dsl's name of :func:`sum`)."""
    return _reduce("reduce_sum", raw_tensor, axis, keepdims, "sum")


def reduce_max(raw_tensor, axis, keepdims=False, priority_flag=False):
    """Maximum over ``axis``; ``priority_flag`` is accepted (the result is exact either way)."""
    return _reduce("reduce_max", raw_tensor, axis, keepdims, "max")


def reduce_min(raw_tensor, axis, keepdims=False, priority_flag=False):
    """Minimum over ``axis``; ``priority_flag`` is accepted."""
    return _reduce("reduce_min", raw_tensor, axis, keepdims, "min")


def reduce_prod(raw_tensor, axis, keepdims=False):
    """Product over ``axis``."""
    return _reduce("reduce_prod", raw_tensor, axis, keepdims, "prod")


def tuple_sum(input_tensor_list, axis, keepdims=False):
    """Sums of several same-shape tensors over the same axes: a list of ``reduce_sum`` nodes, one per tensor."""
    if not isinstance(input_tensor_list, (list, tuple)) or not input_tensor_list:
        raise TbeArgumentError("tuple_sum: input_tensor_list must be a non-empty list of tensors")
    tensors = [require_tensor("tuple_sum", t, f"input {n}") for n, t in enumerate(input_tensor_list)]
    first = static_shape("tuple_sum", tensors[0])
    for n, tensor in enumerate(tensors[1:], 1):
        if static_shape("tuple_sum", tensor) != first:
            raise TbeArgumentError(f"tuple_sum: input {n} has shape {list(tensor.shape)}, input 0 has {list(first)};"
                                   " all inputs must have the same shape")
    return [_reduce("tuple_sum", t, axis, keepdims, "sum") for t in tensors]
