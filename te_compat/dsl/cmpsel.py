"""Compare and select: vcmp, vsel, vcmpsel, vlogic.

* ``vcmp(lhs, rhs, operation, mode='bool')``: tag ``elewise_binary_vcmpv_<op>``, output dtype bool.  A scalar rhs
  becomes a ``broadcast`` node of lhs's dtype.  ``mode='bit'`` packs 8 results per uint8 (bit k of byte j is
  element 8*j+k) in a ``vcmp_bit_<op>`` node (not a vector pattern: scalar pipe).
* ``vsel(condition, lhs, rhs)``: tag ``elewise_multiple_sel``; scalar lhs/rhs become ``broadcast`` nodes (both
  scalars: float16).  A uint8 condition is a bit mask (``vsel_bit`` node, scalar pipe).
* ``vcmpsel``: a vcmp node then a vsel node.  ``vlogic``: ``vlogic_and|or|not`` nodes on bool tensors.
"""
from __future__ import annotations

import tvm

from npusim.errors import TbeArgumentError, TbeTypeError

from te_compat.graph import CMP_OPS, cmp_tag, logic_tag
from te_compat.dsl.broadcast import broadcast_scalar
from te_compat.dsl.cast import autocast, compute_dtype, convert
from te_compat.dsl.checks import dtype_of, is_tensor, require_same_shape, require_tensor, scalar_value, static_shape
from te_compat.dsl.nodes import make_node, tree_combine

_COMPARE = {"eq": lambda a, b: a == b, "ne": lambda a, b: a != b, "lt": lambda a, b: a < b,
            "gt": lambda a, b: a > b, "ge": lambda a, b: a >= b, "le": lambda a, b: a <= b}


def _check_operation(func: str, operation) -> str:
    if operation not in CMP_OPS:
        raise TbeArgumentError(f"{func}: operation {operation!r} is not one of {', '.join(CMP_OPS)}")
    return operation


def _operand_tensor(func: str, value, shape, dtype: str, what: str):
    """A tensor operand: ``value`` converted to ``dtype``, or a scalar broadcast to ``shape``."""
    if is_tensor(value):
        return convert(func, value, dtype)
    return broadcast_scalar(scalar_value(func, value, what), shape, dtype)


def _pack_bits(shape, compare, func: str, tag: str):
    if shape[-1] % 8:
        raise TbeArgumentError(f"{func}: mode 'bit' needs the last dimension to be a multiple of 8, got "
                               f"{shape[-1]}")
    out_shape = tuple(shape[:-1]) + (shape[-1] // 8,)

    def body(*index):
        bits = [compare(*index[:-1], index[-1] * 8 + k).astype("uint8") << tvm.tirx.const(k, "uint8")
                for k in range(8)]
        return tree_combine(bits, lambda a, b: a | b)
    return make_node(out_shape, body, tag, prefix="vcmp_bit")


def vcmp(lhs, rhs, operation="lt", mode="bool"):
    """Element-wise comparison; ``mode`` 'bool' (bool tensor) or 'bit' (uint8, 8 results per byte)."""
    func = "vcmp"
    lhs = require_tensor(func, lhs, "first input")
    operation = _check_operation(func, operation)
    if mode not in ("bool", "bit"):
        raise TbeArgumentError(f"{func}: mode {mode!r} must be 'bool' or 'bit'")
    shape = static_shape(func, lhs)
    if is_tensor(rhs):
        require_same_shape(func, (lhs, rhs), ["lhs", "rhs"])
        _, (lhs, rhs) = autocast(func, ("vcmpv",), lhs, rhs)
    else:
        _, (lhs,) = autocast(func, ("vcmpv",), lhs)
        rhs = _operand_tensor(func, rhs, shape, dtype_of(lhs), "second input")
    compare = _COMPARE[operation]
    if mode == "bit":
        return _pack_bits(shape, lambda *i: compare(lhs(*i), rhs(*i)), func, f"vcmp_bit_{operation}")
    return make_node(shape, lambda *i: compare(lhs(*i), rhs(*i)), cmp_tag(operation), prefix="vcmpv",
                     operands=[lhs, rhs])


def _sel_dtype(func: str, lhs, rhs) -> str:
    dtypes = [dtype_of(v) for v in (lhs, rhs) if is_tensor(v)]
    return compute_dtype(func, ("vsel",), dtypes or ["float16"])


def _bit_select(func: str, condition, lhs, rhs):
    cond_shape = static_shape(func, condition)
    shape = tuple(cond_shape[:-1]) + (cond_shape[-1] * 8,)
    dtype = _sel_dtype(func, lhs, rhs)
    lhs = _operand_tensor(func, lhs, shape, dtype, "lhs")
    rhs = _operand_tensor(func, rhs, shape, dtype, "rhs")
    require_same_shape(func, (lhs, rhs), ["lhs", "rhs"])
    if static_shape(func, lhs) != shape:
        raise TbeArgumentError(f"{func}: a uint8 (bit) condition of shape {list(cond_shape)} selects "
                               f"{list(shape)} elements, but the operands have shape {list(static_shape(func, lhs))}")

    def body(*index):
        byte = condition(*index[:-1], index[-1] // 8)
        bit = (byte >> (index[-1] % 8).astype("uint8")) & tvm.tirx.const(1, "uint8")
        return tvm.tirx.Select(bit != tvm.tirx.const(0, "uint8"), lhs(*index), rhs(*index))
    return make_node(shape, body, "vsel_bit", prefix="vsel_bit")


def vsel(condition, lhs, rhs):
    """``condition ? lhs : rhs``; lhs/rhs are tensors or scalars; condition is bool (or uint8 bit mask)."""
    func = "vsel"
    condition = require_tensor(func, condition, "condition")
    cond_dtype = dtype_of(condition)
    if cond_dtype == "uint8":
        return _bit_select(func, condition, lhs, rhs)
    if cond_dtype != "bool":
        raise TbeTypeError(f"{func}: the condition must be a bool tensor (from vcmp) or a uint8 bit mask, got "
                           f"{cond_dtype}")
    shape = static_shape(func, condition)
    dtype = _sel_dtype(func, lhs, rhs)
    lhs = _operand_tensor(func, lhs, shape, dtype, "lhs")
    rhs = _operand_tensor(func, rhs, shape, dtype, "rhs")
    require_same_shape(func, (condition, lhs, rhs), ["condition", "lhs", "rhs"])
    return make_node(shape, lambda *i: tvm.tirx.Select(condition(*i), lhs(*i), rhs(*i)), "elewise_multiple_sel",
                     prefix="vsel", operands=[condition, lhs, rhs])


def vcmpsel(lhs, rhs=None, operation="lt", slhs=None, srhs=None):
    """``(lhs <op> rhs) ? slhs : srhs``.  Defaults as TBE: rhs 2.0, slhs lhs, srhs rhs (tensor) or 0.0."""
    func = "vcmpsel"
    lhs = require_tensor(func, lhs, "first input")
    _check_operation(func, operation)
    rhs = 2.0 if rhs is None else rhs
    slhs = lhs if slhs is None else slhs
    if srhs is None:
        srhs = rhs if is_tensor(rhs) else 0.0
    shape = static_shape(func, lhs)
    dtype = compute_dtype(func, ("vcmpv", "vsel"), [dtype_of(v) for v in (lhs, rhs, slhs, srhs) if is_tensor(v)])
    lhs = convert(func, lhs, dtype)
    operands = [_operand_tensor(func, v, shape, dtype, what) for v, what in ((rhs, "rhs"), (slhs, "slhs"),
                                                                             (srhs, "srhs"))]
    require_same_shape(func, [lhs] + operands, ["lhs", "rhs", "slhs", "srhs"])
    condition = vcmp(lhs, operands[0], operation, "bool")
    return vsel(condition, operands[1], operands[2])


def vlogic(lhs, rhs=None, operation="logic_and"):
    """Logical and / or / not of bool tensors (``vlogic_and|or|not`` nodes)."""
    func = "vlogic"
    ops = {"logic_and": lambda a, b: tvm.tirx.And(a, b), "logic_or": lambda a, b: tvm.tirx.Or(a, b)}
    lhs = require_tensor(func, lhs, "first input")
    if operation not in ("logic_and", "logic_or", "logic_not"):
        raise TbeArgumentError(f"{func}: operation {operation!r} must be logic_and, logic_or or logic_not")
    tensors = [lhs] if operation == "logic_not" else [lhs, require_tensor(func, rhs, "second input")]
    for tensor in tensors:
        if dtype_of(tensor) != "bool":
            raise TbeTypeError(f"{func}: inputs must be bool tensors, got {dtype_of(tensor)}")
    shape = require_same_shape(func, tensors, ["lhs", "rhs"])
    tag = logic_tag(operation.split("_", 1)[1])
    if operation == "logic_not":
        return make_node(shape, lambda *i: tvm.tirx.Not(lhs(*i)), tag, prefix="vlogic")
    return make_node(shape, lambda *i: ops[operation](lhs(*i), rhs(*i)), tag, prefix="vlogic", operands=[lhs, rhs])
