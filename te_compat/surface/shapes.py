"""``shape_util``: shape arithmetic of TBE op files (broadcasting, reduce-axis refinement, axis checks).

Served as ``tbe.common.utils.shape_util`` (with :func:`~te_compat.surface.classify.variable_shape`) and, for the
names they share, ``te.utils.op_utils`` / ``para_check`` and ``topi.cce.util``.  Shapes may be Python sequences of
ints or TVM shapes (``tensor.shape``); results are lists of ints.  Failed checks raise
:class:`~npusim.errors.TbeArgumentError` (a ``RuntimeError``, as in CANN).
"""
from __future__ import annotations

from itertools import groupby
from math import prod
from numbers import Integral

from npusim.errors import TbeArgumentError
from te_compat.surface.opname import op_name_or_current


def shape_to_list(shape) -> list:
    """A TVM shape (IntImm dims) or a sequence as a list; constant dims become ints, symbolic ones stay."""
    dims = []
    for dim in shape:
        value = getattr(dim, "value", dim)
        dims.append(int(value) if isinstance(value, Integral) else value)
    return dims


def get_shape_size(shape) -> int:
    """Number of elements of ``shape`` (1 for a scalar shape)."""
    return int(prod(shape_to_list(shape)))


def scalar2tensor_one(shape):
    """``[]`` (a scalar) becomes ``[1]``; any other shape is returned unchanged."""
    if isinstance(shape, (list, tuple)) and not shape:
        return [1]
    return shape


def squeeze_shape(shape) -> list:
    """``shape`` without its 1-dims (``[1]`` if nothing is left)."""
    return [d for d in shape_to_list(shape) if d != 1] or [1]


def wrap_axes_to_positive(axes, rank: int) -> list:
    """Axes (an int or a sequence) normalised into [0, rank); raises for an axis outside [-rank, rank)."""
    result = []
    for axis in axes if isinstance(axes, (list, tuple)) else [axes]:
        if not -rank <= axis < rank:
            raise TbeArgumentError(f"Axis must between [-{rank}, {rank}), but got {axis}.")
        result.append(axis + rank if axis < 0 else axis)
    return result


def _axis_value(shape_len: int, value) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise TbeArgumentError(f"type of axis value should be int, but got {type(value).__name__} ({value!r})")
    if not -shape_len <= value < shape_len:
        raise TbeArgumentError(f"input axis is out of range, axis value can be from {-shape_len} to "
                               f"{shape_len - 1}, but got {value}")
    return value + shape_len if value < 0 else value


def axis_check(shape_len: int, axis):
    """Normalise an axis (int → int) or axes (sequence → sorted list without duplicates) for rank ``shape_len``."""
    if not isinstance(axis, (list, tuple, range)):
        return _axis_value(shape_len, axis)
    return sorted({_axis_value(shape_len, a) for a in axis})


def refine_axis(axis, shape) -> list:
    """The normalised axes of ``axis`` whose dimension in ``shape`` is larger than 1."""
    shape = shape_to_list(shape)
    axes = axis if isinstance(axis, (list, tuple)) else [axis]
    normalised = []
    for value in axes:
        position = value + len(shape) if value < 0 else value
        if not 0 <= position < len(shape):
            raise TbeArgumentError(f"wrong axis {value} for shape {shape}")
        normalised.append(position)
    return [a for a in normalised if shape[a] > 1]


def refine_shape_axes(shape, axes):
    """Fuse runs of reduced and of kept axes of a reduce, dropping 1-dims: shape (2,3,4,5,6) with axes (1,-3)
    gives ([2, 12, 30], [1])."""
    shape = shape_to_list(shape)
    if len(shape) == 1:
        return shape, axes
    reduced = set(wrap_axes_to_positive(axes, len(shape)))
    refined_shape, refined_axes = [], []
    previous = None
    for index, dim in enumerate(shape):
        if dim == 1:
            continue
        is_reduced = index in reduced
        if previous is is_reduced:
            refined_shape[-1] *= dim
        else:
            if is_reduced:
                refined_axes.append(len(refined_shape))
            refined_shape.append(dim)
            previous = is_reduced
    return refined_shape or [1], refined_axes


def simplify_axis_shape(shape, axis):
    """Fuse runs of reduced and of kept axes, keeping 1-dims: ([2,3,4,5], [1,2]) gives ([2, 12, 5], [1])."""
    shape = shape_to_list(shape)
    reduced = set(axis_check(len(shape), list(axis)))
    new_shape, new_axes = [], []
    for is_reduced, group in groupby(range(len(shape)), key=lambda i: i in reduced):
        if is_reduced:
            new_axes.append(len(new_shape))
        new_shape.append(prod(shape[i] for i in group))
    return new_shape, new_axes


def shape_refine(shape, reduce_axis=None, keep_dims=True):
    """Drop 1-dims of ``shape``; with ``reduce_axis`` also return the reduce axes renumbered (``topi`` semantics:
    when a reduced axis has size 1 nothing is dropped)."""
    del keep_dims  # CANN accepts and ignores it
    shape = shape_to_list(shape)
    if reduce_axis is None:
        return squeeze_shape(shape)
    axes = list(reduce_axis) if isinstance(reduce_axis, (list, tuple)) else [reduce_axis]
    if any(shape[a] == 1 for a in axes):
        return shape, axes
    kept_axes = sorted(refine_axis(axes, shape))
    if not kept_axes:
        return squeeze_shape(shape), []
    dropped_before = [sum(1 for d in shape[:a] if d == 1) for a in kept_axes]
    return [d for d in shape if d > 1], [a - n for a, n in zip(kept_axes, dropped_before)]


def _pad_left(shape: list, rank: int) -> list:
    return [1] * (rank - len(shape)) + shape


def _broadcast_dim(a, b):
    if a == b or b == 1:
        return a
    if a == 1:
        return b
    return None


def broadcast_shapes(shape1, shape2, op_name="", param_name_input1="", param_name_input2=""):
    """(shape1, shape2, out_shape), the shorter shape left-padded with 1s; raises if they cannot broadcast (the
    error names ``op_name``, by default the op being built, as CANN's does)."""
    first, second = shape_to_list(shape1), shape_to_list(shape2)
    rank = max(len(first), len(second))
    first, second = _pad_left(first, rank), _pad_left(second, rank)
    out = []
    for a, b in zip(first, second):
        dim = _broadcast_dim(a, b)
        if dim is None:
            raise TbeArgumentError(f"In op[{op_name_or_current(op_name)}], the inputs[{param_name_input1}]"
                                   f"[{param_name_input2}] could not be broadcast together with shapes[{first}]"
                                   f"[{second}].")
        out.append(dim)
    return first, second, out


def unify_broadcast_shapes(shapes, op_name="", param_name=""):
    """Broadcast several shapes: returns (padded shape, ..., out_shape)."""
    lists = [shape_to_list(s) for s in shapes]
    rank = max((len(s) for s in lists), default=0)
    padded = [_pad_left(s, rank) for s in lists]
    out = []
    for axis in range(rank):
        dim = 1
        for shape in padded:
            dim = _broadcast_dim(dim, shape[axis])
            if dim is None:
                raise TbeArgumentError(f"In op[{op_name_or_current(op_name)}], the inputs[{param_name}] could not be "
                                       f"broadcast together with shapes{padded}.")
        out.append(dim)
    return (*padded, out)


def produce_shapes(shape1, shape2):
    """``topi.cce.util`` spelling of :func:`broadcast_shapes`."""
    try:
        return broadcast_shapes(shape1, shape2)
    except TbeArgumentError as exc:
        raise TbeArgumentError(f"input shapes not match! {exc}") from None


def refine_shapes_for_broadcast(shape1, shape2):
    """Fuse adjacent axes that broadcast the same way (both equal, or the same side is 1) and drop axes that are 1
    in both; the result broadcasts exactly as the input shapes do."""
    from te_compat.surface.fusion import fusion_manager
    if fusion_manager.get_build_cfg() == "disable":
        return shape1, shape2
    first, second, _ = broadcast_shapes(shape1, shape2)
    pairs = [(a, b) for a, b in zip(first, second) if not (a == 1 and b == 1)] or [(1, 1)]

    def pattern(pair):
        a, b = pair
        return "same" if a == b else ("first_is_1" if a == 1 else "second_is_1")

    fused_first, fused_second = [], []
    for _, group in groupby(pairs, key=pattern):
        group = list(group)
        fused_first.append(prod(a for a, _ in group))
        fused_second.append(prod(b for _, b in group))
    return fused_first, fused_second


__all__ = ["axis_check", "broadcast_shapes", "get_shape_size", "produce_shapes", "refine_axis", "refine_shape_axes",
           "refine_shapes_for_broadcast", "scalar2tensor_one", "shape_refine", "shape_to_list", "simplify_axis_shape",
           "squeeze_shape", "unify_broadcast_shapes", "wrap_axes_to_positive"]
