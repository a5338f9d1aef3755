"""Data-movement DSL functions: concat, split / split_compute_com, and tbe.dsl's transpose, slice, set_value,
gather, gather_nd.  None is a vector pattern (tags ``concat``, ``split_com``, ``transpose``, ``slice``,
``set_value``, ``gather``, ``gather_nd``): the scheduler runs them on the scalar pipe; the bodies are exact."""
from __future__ import annotations

import types

import tvm

from npusim.errors import TbeArgumentError, TbeTypeError

from te_compat.dsl.checks import concrete_int, dtype_of, int_list, is_tensor, normalize_axis, require_tensor, \
    static_shape
from te_compat.dsl.nodes import make_node


def concat(raw_tensors, axis):
    """The tensors joined along ``axis`` (same dtype; other dims equal)."""
    func = "concat"
    if not isinstance(raw_tensors, (list, tuple)) or not raw_tensors:
        raise TbeArgumentError(f"{func}: raw_tensors must be a non-empty list of tensors")
    tensors = [require_tensor(func, t, f"input {n}") for n, t in enumerate(raw_tensors)]
    shapes = [static_shape(func, t) for t in tensors]
    axis = normalize_axis(func, axis, len(shapes[0]))
    for n, (tensor, shape) in enumerate(zip(tensors, shapes)):
        if dtype_of(tensor) != dtype_of(tensors[0]):
            raise TbeArgumentError(f"{func}: input {n} has dtype {dtype_of(tensor)}, input 0 {dtype_of(tensors[0])};"
                                   " dtypes must be the same")
        if len(shape) != len(shapes[0]) or any(a != b for p, (a, b) in enumerate(zip(shape, shapes[0]))
                                               if p != axis):
            raise TbeArgumentError(f"{func}: input {n} shape {list(shape)} differs from input 0 {list(shapes[0])} "
                                   f"outside the concat axis {axis}")
    if len(tensors) == 1:
        return tensors[0]
    offsets = [0]
    for shape in shapes:
        offsets.append(offsets[-1] + shape[axis])
    out_shape = shapes[0][:axis] + (offsets[-1],) + shapes[0][axis + 1:]

    def body(*index):
        def read(n):
            moved = list(index)
            moved[axis] = index[axis] - offsets[n]
            return tensors[n](*moved)
        expr = read(len(tensors) - 1)
        for n in range(len(tensors) - 2, -1, -1):
            expr = tvm.tirx.if_then_else(index[axis] < offsets[n + 1], read(n), expr)
        return expr
    return make_node(out_shape, body, "concat", {"axis": axis}, prefix="concat")


def split(data, split_dim, size_splits):
    """``data`` cut along ``split_dim`` into pieces of ``size_splits``: (list of shapes, list of tensors)."""
    func = "split"
    x = require_tensor(func, data, "data")
    shape = static_shape(func, x)
    axis = normalize_axis(func, split_dim, len(shape))
    sizes = int_list(func, size_splits, "size_splits")
    if any(size <= 0 for size in sizes) or sum(sizes) != shape[axis]:
        raise TbeArgumentError(f"{func}: size_splits {sizes} must be positive and sum to dimension {axis} "
                               f"({shape[axis]})")
    shapes, tensors, offset = [], [], 0
    for n, size in enumerate(sizes):
        piece = shape[:axis] + (size,) + shape[axis + 1:]
        tensors.append(_split_piece(x, piece, axis, offset, n))
        shapes.append(list(piece))
        offset += size
    return shapes, tensors


def _split_piece(x, shape, axis: int, offset: int, n: int):
    def body(*index):
        moved = list(index)
        moved[axis] = index[axis] + offset
        return x(*moved)
    return make_node(shape, body, "split_com", {"axis": axis, "offset": offset, "index": n}, prefix="split")


def split_compute_com(data, split_dim, size_splits):
    """te.lang.cce's name of :func:`split`."""
    return split(data, split_dim, size_splits)


def transpose(tensor, axes):
    """``tensor`` with dimensions permuted: output dim i is input dim axes[i]."""
    func = "transpose"
    x = require_tensor(func, tensor)
    shape = static_shape(func, x)
    perm = int_list(func, axes, "axes")
    if sorted(perm) != list(range(len(shape))):
        raise TbeArgumentError(f"{func}: axes {perm} is not a permutation of the {len(shape)} dimensions")
    out_shape = tuple(shape[p] for p in perm)

    def body(*index):
        source = [None] * len(shape)
        for out_pos, in_pos in enumerate(perm):
            source[in_pos] = index[out_pos]
        return x(*source)
    return make_node(out_shape, body, "transpose", {"permute": perm}, prefix="transpose")


def slice(tensor, begin, end, stride=None):  # noqa: A001  (tbe.dsl's name)
    """``tensor[begin:end:stride]`` per dimension (negative begin/end count from the end; stride > 0)."""
    func = "slice"
    x = require_tensor(func, tensor)
    shape = static_shape(func, x)
    starts, stops = int_list(func, begin, "begin"), int_list(func, end, "end")
    steps = [1] * len(shape) if stride is None else int_list(func, stride, "stride")
    if not len(starts) == len(stops) == len(steps) == len(shape):
        raise TbeArgumentError(f"{func}: begin, end and stride need {len(shape)} entries each")
    out_shape = []
    for pos, (dim, start, stop, step) in enumerate(zip(shape, starts, stops, steps)):
        if step <= 0:
            raise TbeArgumentError(f"{func}: stride[{pos}] = {step} must be positive")
        start = min(max(start + dim if start < 0 else start, 0), dim)
        stop = min(max(stop + dim if stop < 0 else stop, 0), dim)
        if stop <= start:
            raise TbeArgumentError(f"{func}: dimension {pos} slice [{starts[pos]}:{stops[pos]}] is empty")
        starts[pos] = start
        out_shape.append((stop - start + step - 1) // step)

    def body(*index):
        return x(*(starts[p] + index[p] * steps[p] for p in range(len(shape))))
    return make_node(out_shape, body, "slice", {"begin": starts, "stride": steps}, prefix="slice")


def set_value(tensor, condition, value):
    """``tensor`` with ``value`` where ``condition(*index)`` holds; ``value`` is a constant or ``f(*index)``."""
    func = "set_value"
    x = require_tensor(func, tensor)
    shape = static_shape(func, x)
    if not callable(condition):
        raise TbeTypeError(f"{func}: condition must be a function of the indices, got {type(condition).__name__}")
    dtype = dtype_of(x)

    def body(*index):
        if isinstance(value, types.FunctionType):
            new = value(*index)
        elif is_tensor(value):
            raise TbeTypeError(f"{func}: value must be a constant, a variable or a function of the indices")
        else:
            new = value if isinstance(value, tvm.ir.expr.Expr) else tvm.tirx.const(value, dtype)
        return tvm.tirx.Select(condition(*index), new.astype(dtype), x(*index))
    return make_node(shape, body, "set_value", prefix="set_value")


def _check_indices(func: str, indices):
    indices = require_tensor(func, indices, "indices")
    if dtype_of(indices) not in ("int32", "int64"):
        raise TbeArgumentError(f"{func}: indices dtype must be int32 or int64, got {dtype_of(indices)}")
    return indices


def gather(params, indices, axis=None, batch_dims=0):
    """Rows of ``params`` along ``axis`` picked by ``indices`` (TF semantics; axis defaults to batch_dims)."""
    func = "gather"
    params = require_tensor(func, params, "params")
    indices = _check_indices(func, indices)
    p_shape, i_shape = static_shape(func, params), static_shape(func, indices)
    batch = concrete_int(func, batch_dims, "batch_dims")
    axis = batch if axis is None else normalize_axis(func, axis, len(p_shape))
    if not 0 <= batch <= min(axis, len(i_shape)) or p_shape[:batch] != i_shape[:batch]:
        raise TbeArgumentError(f"{func}: batch_dims {batch} must be <= axis {axis} and name equal leading dims of "
                               f"params {list(p_shape)} and indices {list(i_shape)}")
    out_shape = p_shape[:axis] + i_shape[batch:] + p_shape[axis + 1:]
    end = axis + len(i_shape) - batch

    def body(*index):
        picked = indices(*(index[:batch] + index[axis:end])).astype("int32")
        return params(*(index[:axis] + (picked,) + index[end:]))
    return make_node(out_shape, body, "gather", {"axis": axis, "batch_dims": batch}, prefix="gather")


def gather_nd(params, indices, batch_dims=0):
    """Slices of ``params`` addressed by the last dimension of ``indices`` (TF gather_nd semantics)."""
    func = "gather_nd"
    params = require_tensor(func, params, "params")
    indices = _check_indices(func, indices)
    p_shape, i_shape = static_shape(func, params), static_shape(func, indices)
    batch = concrete_int(func, batch_dims, "batch_dims")
    depth = i_shape[-1]
    if batch + depth > len(p_shape) or p_shape[:batch] != i_shape[:batch]:
        raise TbeArgumentError(f"{func}: indices {list(i_shape)} with batch_dims {batch} do not fit params "
                               f"{list(p_shape)}")
    out_shape = i_shape[:-1] + p_shape[batch + depth:]
    lead = len(i_shape) - 1

    def body(*index):
        picked = [indices(*index[:lead], j).astype("int32") for j in range(depth)]
        return params(*(list(index[:batch]) + picked + list(index[lead:])))
    return make_node(out_shape, body, "gather_nd", {"batch_dims": batch}, prefix="gather_nd")
