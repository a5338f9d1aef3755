"""unsorted_segment_{sum,mean,prod,min,max}(tensor, segment_ids, num_segments, init_value=0) and
inplace_{add,sub,update}(lhs, inplace_ids, rhs).

``segment_ids`` / ``inplace_ids`` are Python lists of ints (known when the kernel is built, as in TBE), so each
output row is a fixed combination of input rows.  These are not vector patterns (tags ``segment_<op>``,
``inplace_<op>``): the scheduler runs them on the scalar pipe.
"""
from __future__ import annotations

import tvm
from tvm import te

from npusim.errors import TbeArgumentError

from te_compat.dsl.checks import FLOAT_DTYPES, concrete_int, const, dtype_of, int_list, require_tensor, \
    scalar_value, static_shape
from te_compat.dsl.nodes import make_node, select_by_key, tree_combine

_COMBINE = {"sum": lambda a, b: a + b, "mean": lambda a, b: a + b, "prod": lambda a, b: a * b,
            "min": te.min, "max": te.max}
_SEGMENT_DTYPES = ("float16", "float32", "int32")


def _segment(op: str, tensor, segment_ids, num_segments, init_value):
    func = f"unsorted_segment_{op}"
    x = require_tensor(func, tensor)
    shape = static_shape(func, x)
    dtype = dtype_of(x)
    if dtype not in _SEGMENT_DTYPES:
        raise TbeArgumentError(f"{func}: dtype {dtype} is not supported ({', '.join(_SEGMENT_DTYPES)})")
    ids = int_list(func, segment_ids, "segment_ids")
    if len(ids) != shape[0]:
        raise TbeArgumentError(f"{func}: segment_ids has {len(ids)} entries but the tensor's first dimension is "
                               f"{shape[0]}")
    count = concrete_int(func, num_segments, "num_segments")
    if count <= 0:
        raise TbeArgumentError(f"{func}: num_segments must be positive, got {count}")
    init = const(scalar_value(func, init_value, "init_value"), dtype)
    rows_of = {seg: [row for row, sid in enumerate(ids) if sid == seg] for seg in range(count)}
    keys = [seg for seg in range(count) if rows_of[seg]]

    def body(seg_index, *rest):
        def leaf(seg):
            value = tree_combine([x(row, *rest) for row in rows_of[seg]], _COMBINE[op])
            if op == "mean":
                rows = len(rows_of[seg])
                value = value * const(1.0 / rows, dtype) if dtype in FLOAT_DTYPES else \
                    tvm.tirx.truncdiv(value, const(rows, dtype))
            return value
        return select_by_key(seg_index, keys, leaf, lambda: init)
    attrs = {"segment_ids": ids, "num_segments": count}
    return make_node((count,) + shape[1:], body, f"segment_{op}", attrs, prefix=f"segment_{op}")


def unsorted_segment_sum(tensor, segment_ids, num_segments, init_value=0):
    """out[s] = sum of rows r with segment_ids[r] == s (init_value where no row maps to s)."""
    return _segment("sum", tensor, segment_ids, num_segments, init_value)


def unsorted_segment_mean(tensor, segment_ids, num_segments, init_value=0):
    """out[s] = mean of rows r with segment_ids[r] == s (init_value where no row maps to s)."""
    return _segment("mean", tensor, segment_ids, num_segments, init_value)


def unsorted_segment_prod(tensor, segment_ids, num_segments, init_value=0):
    """out[s] = product of rows r with segment_ids[r] == s (init_value where no row maps to s)."""
    return _segment("prod", tensor, segment_ids, num_segments, init_value)


def unsorted_segment_min(tensor, segment_ids, num_segments, init_value=0):
    """out[s] = element-wise minimum of rows r with segment_ids[r] == s (init_value where none)."""
    return _segment("min", tensor, segment_ids, num_segments, init_value)


def unsorted_segment_max(tensor, segment_ids, num_segments, init_value=0):
    """out[s] = element-wise maximum of rows r with segment_ids[r] == s (init_value where none)."""
    return _segment("max", tensor, segment_ids, num_segments, init_value)


def _inplace(op: str, lhs, inplace_ids, rhs):
    func = f"inplace_{op}"
    lhs = require_tensor(func, lhs, "lhs")
    rhs = require_tensor(func, rhs, "rhs")
    lhs_shape, rhs_shape = static_shape(func, lhs), static_shape(func, rhs)
    ids = int_list(func, inplace_ids, "inplace_ids")
    if rhs_shape == lhs_shape[1:] and len(ids) == 1:
        source = rhs

        def rhs_row(_i, *rest):
            return source(*rest)
    else:
        if rhs_shape != (len(ids),) + lhs_shape[1:]:
            raise TbeArgumentError(f"{func}: rhs shape {list(rhs_shape)} must be [len(inplace_ids)] + lhs shape[1:]"
                                   f" = {[len(ids)] + list(lhs_shape[1:])}")
        rhs_row = rhs
    if dtype_of(lhs) != dtype_of(rhs):
        raise TbeArgumentError(f"{func}: lhs dtype {dtype_of(lhs)} and rhs dtype {dtype_of(rhs)} must be the same")
    for pos, row in enumerate(ids):
        if not 0 <= row < lhs_shape[0]:
            raise TbeArgumentError(f"{func}: inplace_ids[{pos}] = {row} is outside [0, {lhs_shape[0]})")
    updates = {row: [i for i, r in enumerate(ids) if r == row] for row in set(ids)}

    def body(row_index, *rest):
        def leaf(row):
            if op == "update":
                return rhs_row(updates[row][-1], *rest)
            total = tree_combine([rhs_row(i, *rest) for i in updates[row]], lambda a, b: a + b)
            return lhs(row, *rest) + total if op == "add" else lhs(row, *rest) - total
        return select_by_key(row_index, sorted(updates), leaf, lambda: lhs(row_index, *rest))
    return make_node(lhs_shape, body, f"inplace_{op}", {"inplace_ids": ids}, prefix=f"inplace_{op}")


def inplace_add(lhs, inplace_ids, rhs):
    """lhs with rhs[i] added to row inplace_ids[i] (repeated ids accumulate)."""
    return _inplace("add", lhs, inplace_ids, rhs)


def inplace_sub(lhs, inplace_ids, rhs):
    """lhs with rhs[i] subtracted from row inplace_ids[i] (repeated ids accumulate)."""
    return _inplace("sub", lhs, inplace_ids, rhs)


def inplace_update(lhs, inplace_ids, rhs):
    """lhs with row inplace_ids[i] replaced by rhs[i] (the last of repeated ids wins)."""
    return _inplace("update", lhs, inplace_ids, rhs)
