"""What each tagged node computes, as plain data: :class:`OpInfo` (kind, op, operands in semantic order).

The tag says which operation a node is (see :mod:`te_compat.graph`); the operands are the node's inputs in
contract order (one per argument); a node with fewer inputs than its op has arguments (a hand-written compute
with an immediate in its body, or without the ``args`` attr) has its operands read from the TVM compute body.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from te_compat import graph as contract
from te_compat.schedule.common import UnsupportedPattern

ELEMENTWISE_KINDS = ("unary", "vs", "binary", "axpy", "fma", "cmp", "sel", "cast", "logic")


@dataclass(frozen=True)
class Operand:
    """A node operand: graph node ``node``, or (node None) an immediate constant ``value``."""

    node: Optional[int]
    value: object = None

    @property
    def is_const(self) -> bool:
        return self.node is None


@dataclass(frozen=True)
class OpInfo:
    """kind: input const unary vs binary axpy fma cmp sel cast logic bcast reduce.  op: the unary/binary/cmp/
    logic/reduce op name, "fma"/"fma_relu", or the cast rounding mode.  scalar: the VS/axpy scalar or the const
    value."""

    kind: str
    op: str = ""
    operands: tuple = ()
    scalar: object = None
    axes: tuple = ()
    keepdims: bool = False


def operand_dtype(graph, infos: dict, index: int, position: int) -> str:
    """The dtype operand ``position`` of node ``index`` is read in: its node's dtype, or for an immediate the
    dtype the op computes in (a compare's other operand, else the node's own dtype)."""
    operands = infos[index].operands
    operand = operands[position]
    if not operand.is_const:
        return graph.nodes[operand.node].dtype
    if infos[index].kind == "cmp":
        other = operands[1 - position]
        if not other.is_const:
            return graph.nodes[other.node].dtype
        return _immediate_dtype(operand.value)
    return graph.nodes[index].dtype


def _immediate_dtype(value) -> str:
    return "float32" if isinstance(value, float) else "int32"


def op_info(graph, node) -> OpInfo:
    """The OpInfo of one graph node (raises UnsupportedPattern for tags with no vector mapping)."""
    if node.is_placeholder:
        return OpInfo("input")
    tag = node.tag
    if tag == "broadcast" and not node.inputs:
        return OpInfo("const", scalar=_const_value(node))
    if not node.inputs and not tag.startswith("reduce_"):
        value = _constant_body(node)  # TVM folded the body (x * 0.0 -> 0.0): the node is that constant
        if value is not None:
            return OpInfo("const", scalar=value)
    if tag in ("broadcast_for_tensor", "broadcast"):
        return OpInfo("bcast", operands=_by_inputs(node, 1))
    if tag.startswith("reduce_") and tag[len("reduce_"):] in contract.REDUCE_OPS:
        axes = tuple(int(a) for a in _as_tuple(node.attrs.get("axes", ())))
        return OpInfo("reduce", tag[len("reduce_"):], _by_inputs(node, 1), axes=axes,
                      keepdims=bool(node.attrs.get("keepdims", False)))
    if tag in contract.CAST_TAGS:
        mode = contract.CAST_TAGS[tag] or str(node.attrs.get("round_mode", "none"))
        return OpInfo("cast", "" if mode == "none" else mode, _by_inputs(node, 1))
    return _elementwise_info(graph, node, tag)


def _elementwise_info(graph, node, tag: str) -> OpInfo:
    for prefix, kind, names in (("elewise_single_VS_", "vs", contract.SCALAR_OPS),
                                ("elewise_single_", "unary", contract.UNARY_OPS),
                                ("elewise_binary_vcmpv_", "cmp", contract.CMP_OPS),
                                ("elewise_binary_", "binary", contract.BINARY_OPS)):
        if tag.startswith(prefix) and tag[len(prefix):] in names:
            op = tag[len(prefix):]
            if kind == "vs":
                return OpInfo("vs", op, _by_inputs(node, 1), scalar=_scalar_attr(node))
            if kind == "unary":
                return OpInfo("unary", op, _by_inputs(node, 1))
            return OpInfo(kind, op, _binary_operands(graph, node))
    if tag == "elewise_binary_scalar_axpy":
        return OpInfo("axpy", "axpy", _axpy_operands(graph, node), scalar=_scalar_attr(node))
    if tag in contract.TERNARY_TAGS:
        return OpInfo("fma", "fma_relu" if tag.endswith("relu") else "fma", _fma_operands(graph, node, tag))
    if tag == "elewise_multiple_sel":
        return OpInfo("sel", "sel", _sel_operands(graph, node))
    if tag.startswith("vlogic_") and tag[len("vlogic_"):] in contract.LOGIC_OPS:
        op = tag[len("vlogic_"):]
        return OpInfo("logic", op, _by_inputs(node, 1 if op == "not" else 2))
    what = f"tag {tag!r}" if tag else "an untagged tvm.compute"
    raise UnsupportedPattern(f"{what} ({node.name}) is not a vector pattern")


def _as_tuple(value) -> tuple:
    return tuple(value) if isinstance(value, (list, tuple)) else (value,)


def _by_inputs(node, arity: int) -> tuple:
    inputs = node.inputs
    if len(inputs) == arity:
        return tuple(Operand(i) for i in inputs)
    if len(inputs) == 1:
        return tuple(Operand(inputs[0]) for _ in range(arity))
    raise UnsupportedPattern(f"{node.tag} node {node.name} has {len(inputs)} inputs, expected {arity}")


def _scalar_attr(node):
    if "scalar" in node.attrs:
        return node.attrs["scalar"]
    for const in _consts(_body(node)):
        return const
    raise UnsupportedPattern(f"{node.tag} node {node.name} has no scalar attr")


def _constant_body(node):
    """The value of a compute whose body is a plain constant, else None."""
    body = _body(node)
    leaf = _strip(body) if body is not None else None
    if leaf is not None and hasattr(leaf, "value") and type(leaf).__name__ in ("FloatImm", "IntImm"):
        return leaf.value
    return None


def _const_value(node):
    if "value" in node.attrs:
        return node.attrs["value"]
    value = _constant_body(node)
    if value is not None:
        return value
    raise UnsupportedPattern(f"broadcast node {node.name} has no constant value")


# -- reading TVM compute bodies ---------------------------------------------------------------------------------
def _body(node):
    op = getattr(node.tensor, "op", None)
    body = getattr(op, "body", None)
    return body[0] if body else None


def _strip(expr):
    while type(expr).__name__ == "Cast":
        expr = expr.value
    return expr


def _load_tensor(expr):
    """The tensor a te.tensor_load / ProducerLoad reads, else None."""
    name = type(expr).__name__
    if name == "ProducerLoad":
        return expr.producer
    if name == "Call" and getattr(expr.op, "name", "") == "te.tensor_load":
        return expr.args[0]
    return None


def _leaf(graph, expr) -> Optional[Operand]:
    expr = _strip(expr)
    tensor = _load_tensor(expr)
    if tensor is not None:
        try:
            return Operand(graph.node_of(tensor).index)
        except KeyError:
            return None
    if type(expr).__name__ in ("FloatImm", "IntImm"):
        return Operand(None, expr.value)
    return None


def _children(expr) -> list:
    name = type(expr).__name__
    if name == "Select":
        return [expr.condition, expr.true_value, expr.false_value]
    if name == "Call":
        return list(expr.args)
    if name == "Cast":
        return [expr.value]
    return [getattr(expr, k) for k in ("a", "b") if hasattr(expr, k)]


def _pair(graph, expr) -> Optional[tuple]:
    """The two leaf operands of the first binary node (depth-first) whose both sides are leaves."""
    expr = _strip(expr)
    kids = _children(expr)
    if len(kids) == 2 and _load_tensor(expr) is None:
        left, right = _leaf(graph, kids[0]), _leaf(graph, kids[1])
        if left is not None and right is not None:
            return left, right
    for kid in kids:
        found = _pair(graph, kid)
        if found is not None:
            return found
    return None


def _consts(expr) -> list:
    if expr is None:
        return []
    expr = _strip(expr)
    if type(expr).__name__ in ("FloatImm", "IntImm"):
        return [expr.value]
    return [v for kid in _children(expr) for v in _consts(kid)]


def _binary_operands(graph, node) -> tuple:
    if len(node.inputs) == 2:
        return _by_inputs(node, 2)
    body = _body(node)
    found = _pair(graph, body) if body is not None else None
    if found is not None and set(o.node for o in found if not o.is_const) <= set(node.inputs):
        return found
    return _by_inputs(node, 2)


def _axpy_operands(graph, node) -> tuple:
    if len(node.inputs) == 2:
        return _by_inputs(node, 2)
    body = _body(node)
    if body is not None and type(_strip(body)).__name__ == "Add":
        add = _strip(body)
        for mul, other in ((add.a, add.b), (add.b, add.a)):
            mul = _strip(mul)
            if type(mul).__name__ == "Mul":
                tensors = [_leaf(graph, s) for s in (mul.a, mul.b)]
                tensors = [t for t in tensors if t is not None and not t.is_const]
                rhs = _leaf(graph, other)
                if len(tensors) == 1 and rhs is not None:
                    return tensors[0], rhs
    return _by_inputs(node, 2)


def _fma_operands(graph, node, tag: str) -> tuple:
    """(x, y, z) meaning x * y + z: from the contract order, or read from the body for fewer inputs."""
    if len(node.inputs) == 3:
        a, b, c = _by_inputs(node, 3)
        return (a, c, b) if tag.startswith("elewise_multiple_madd") else (a, b, c)
    body = _body(node)
    expr = _strip(body) if body is not None else None
    if expr is not None and type(expr).__name__ == "Max":
        expr = _strip(expr.a)
    if expr is not None and type(expr).__name__ == "Add":
        for mul, other in ((expr.a, expr.b), (expr.b, expr.a)):
            mul = _strip(mul)
            if type(mul).__name__ == "Mul":
                parts = (_leaf(graph, mul.a), _leaf(graph, mul.b), _leaf(graph, other))
                if all(p is not None for p in parts):
                    return parts
    a, b, c = _by_inputs(node, 3)
    return (a, c, b) if tag.startswith("elewise_multiple_madd") else (a, b, c)


def _sel_operands(graph, node) -> tuple:
    if len(node.inputs) == 3:
        return _by_inputs(node, 3)
    body = _body(node)
    expr = _strip(body) if body is not None else None
    if expr is not None and (type(expr).__name__ == "Select" or (
            type(expr).__name__ == "Call" and getattr(expr.op, "name", "").endswith("if_then_else"))):
        cond_expr, true_expr, false_expr = _children(expr)
        cond = _first_load(graph, cond_expr)
        branches = (_leaf(graph, true_expr), _leaf(graph, false_expr))
        if cond is not None and all(b is not None for b in branches):
            return (cond,) + branches
    return _by_inputs(node, 3)


def _first_load(graph, expr) -> Optional[Operand]:
    leaf = _leaf(graph, expr)
    if leaf is not None and not leaf.is_const:
        return leaf
    for kid in _children(_strip(expr)):
        found = _first_load(graph, kid)
        if found is not None:
            return found
    return None
