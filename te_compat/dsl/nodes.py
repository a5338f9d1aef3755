"""Building tagged TVM TE compute nodes, and expression helpers the bodies share."""
from __future__ import annotations

import itertools

import tvm
from tvm import te

_NAME_INDEX = itertools.count()


def next_name(prefix: str) -> str:
    """A fresh compute name ``<prefix>_<n>`` (TBE names its computes the same way)."""
    return f"{prefix}_{next(_NAME_INDEX)}"


def make_node(shape, body, tag: str, attrs=None, prefix: str | None = None, operands=None) -> te.Tensor:
    """``te.compute(shape, body)`` tagged ``tag`` with ``attrs``; ``body`` takes one index var per dimension.

    ``operands``: the op's tensor arguments in DSL order.  TVM lists each distinct tensor once in
    ``input_tensors`` (``vmul(x, x)`` has one), so when the arguments are not exactly ``input_tensors`` the node
    gets an ``args`` attr: for each argument, its position in ``input_tensors`` (see te_compat.graph).
    """
    name = next_name(prefix or tag.rsplit("_", 1)[-1] or "compute")
    shape = tuple(int(d) for d in shape)
    attrs = dict(attrs or {})
    out = te.compute(shape, body, name=name, tag=tag, attrs=attrs or None)
    if operands:
        inputs = list(out.op.input_tensors)
        positions = tuple(next(k for k, t in enumerate(inputs) if t.same_as(arg)) for arg in operands)
        if positions != tuple(range(len(inputs))):
            attrs["args"] = list(positions)
            out = te.compute(shape, body, name=name, tag=tag, attrs=attrs)
    return out


def bind_in_order(values: list, body):
    """``body(*vars)`` with each of ``values`` bound to a Let var, in order.

    TVM lists a compute's ``input_tensors`` in the order the body first reads them; binding the operands first
    makes that order the DSL argument order (the graph contract's input order) even when the formula reads them
    in another order (vmadd is a * c + b).
    """
    names = [tvm.tirx.Var(f"v{n}", str(value.ty)) for n, value in enumerate(values)]
    expr = body(*names)
    for name, value in reversed(list(zip(names, values))):
        expr = tvm.tirx.Let(name, value, expr)
    return expr


def tree_combine(values: list, combine):
    """``combine`` folded over ``values`` as a balanced tree (keeps expression depth logarithmic)."""
    if len(values) == 1:
        return values[0]
    middle = len(values) // 2
    return combine(tree_combine(values[:middle], combine), tree_combine(values[middle:], combine))


def select_by_key(index, keys: list, leaf, default):
    """An expression equal to ``leaf(k)`` where ``index == k`` for k in the sorted ``keys``, else ``default()``.

    A balanced tree of lazily evaluated ``if_then_else`` (only the taken branch reads memory), so branches that
    index other tensors out of range are never evaluated.
    """
    if not keys:
        return default()
    if len(keys) == 1:
        return tvm.tirx.if_then_else(index == keys[0], leaf(keys[0]), default())
    middle = len(keys) // 2
    return tvm.tirx.if_then_else(index < keys[middle], select_by_key(index, keys[:middle], leaf, default),
                                 select_by_key(index, keys[middle:], leaf, default))


def prod_reducer():
    """A TVM commutative reducer for products (TVM has sum/max/min built in)."""
    return te.comm_reducer(lambda a, b: a * b, lambda dtype: tvm.tirx.const(1, dtype), name="prod")
