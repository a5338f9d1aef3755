"""The DSL graph contract: how a TBE DSL compute is tagged, and its plain-data form for the scheduler.

Every ``te.lang.cce`` / ``tbe.dsl`` function builds a TVM TE ``ComputeOp`` whose ``tag`` names the operation and
whose ``attrs`` carry its parameters.  The scheduler never looks at TVM expression bodies for tagged ops: it reads
the tag and attrs through :func:`extract`, which turns the TVM tensor DAG into frozen :class:`Node` data.

Tags (``<op>`` is a lowercase name; inputs are listed in order):

=================================  =====================  ============================================================
tag                                inputs                 meaning / attrs
=================================  =====================  ============================================================
``elewise_single_<op>``            x                      op in abs exp log rec relu not sqrt rsqrt
``elewise_single_VS_<op>``         x                      op in add mul max min; attrs scalar (Python number)
``elewise_binary_<op>``            a, b                   op in add sub mul div max min and or (same shapes)
``elewise_binary_scalar_axpy``     a, b                   scalar * a + b; attrs scalar
``elewise_multiple_mla``           a, b, c                a * b + c
``elewise_multiple_madd``          a, b, c                a * c + b
``elewise_multiple_maddrelu``      a, b, c                relu(a * c + b)
``elewise_binary_vcmpv_<cmp>``     a, b                   cmp in eq ne lt gt ge le; output dtype "bool"
``elewise_multiple_sel``           cond, a, b             cond (bool) ? a : b
``vlogic_and|or``                  a, b                   logical and / or of bool tensors (bytes 0/1)
``vlogic_not``                     a                      logical not of a bool tensor
``elewise_single_cast``            x                      attrs round_mode: one of none r a f c z (vconv modes);
``elewise_single_floor|ceil|       x                      the output dtype is the tensor's dtype
round|round_d|trunc``
``broadcast_for_tensor``           x                      x's shape right-aligned to the output's; each input dim
                                                          equals the output dim or is 1 (rank may be smaller)
``broadcast``                      (none)                 every element = attrs value (tensor of the output dtype)
``reduce_sum|max|min|prod``        x                      attrs axes (sorted, normalised over x's rank), keepdims
=================================  =====================  ============================================================

TVM lists each distinct tensor once among a compute's inputs (``vmul(x, x)`` reads one tensor).  A DSL node whose
arguments are not exactly its distinct inputs in order carries an ``args`` attr (per argument, its position among
the distinct inputs); :func:`extract` applies it, so ``Node.inputs`` is always one entry per argument, in order.

Any other tag (``concat``, ``transpose``, a user's untagged ``tvm.compute`` ...) is not a vector pattern: the
scheduler hands such a graph to the scalar-pipe fallback, which compiles the TVM compute itself.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from te_compat.objects import dtype_of, raw, raw_tree

UNARY_OPS = ("abs", "exp", "log", "rec", "relu", "not", "sqrt", "rsqrt")
SCALAR_OPS = ("add", "mul", "max", "min")
BINARY_OPS = ("add", "sub", "mul", "div", "max", "min", "and", "or")
TERNARY_TAGS = ("elewise_multiple_mla", "elewise_multiple_madd", "elewise_multiple_maddrelu")
CMP_OPS = ("eq", "ne", "lt", "gt", "ge", "le")
LOGIC_OPS = ("and", "or", "not")
CAST_TAGS = {"elewise_single_cast": None, "elewise_single_floor": "f", "elewise_single_ceil": "c",
             "elewise_single_round": "r", "elewise_single_round_d": "a", "elewise_single_trunc": "z"}
ROUND_MODES = ("none", "r", "a", "f", "c", "z")
REDUCE_OPS = ("sum", "max", "min", "prod")


def unary_tag(op: str) -> str:
    return f"elewise_single_{op}"


def scalar_tag(op: str) -> str:
    return f"elewise_single_VS_{op}"


def binary_tag(op: str) -> str:
    return f"elewise_binary_{op}"


def cmp_tag(op: str) -> str:
    return f"elewise_binary_vcmpv_{op}"


def logic_tag(op: str) -> str:
    return f"vlogic_{op}"


def reduce_tag(op: str) -> str:
    return f"reduce_{op}"


@dataclass(frozen=True)
class Node:
    """One tensor of the graph.  kind: "placeholder", "compute" (tagged or not).  inputs: indices into
    :attr:`Graph.nodes`.  attrs: the op's attrs as a plain dict (numbers, strings, tuples)."""

    index: int
    name: str
    kind: str
    tag: str
    shape: tuple
    dtype: str
    inputs: tuple = ()
    attrs: dict = field(default_factory=dict, hash=False, compare=False)
    tensor: Any = field(default=None, hash=False, compare=False, repr=False)

    @property
    def is_placeholder(self) -> bool:
        return self.kind == "placeholder"


@dataclass(frozen=True)
class Graph:
    """A DSL graph in topological order (inputs before users); ``outputs`` are node indices."""

    nodes: tuple
    outputs: tuple

    @property
    def placeholders(self) -> tuple:
        return tuple(n for n in self.nodes if n.is_placeholder)

    def users(self, index: int) -> tuple:
        return tuple(n.index for n in self.nodes if index in n.inputs)

    def node_of(self, tensor) -> Node:
        """The node of a TVM tensor (raw or a surface wrapper) of this graph."""
        tensor = raw(tensor)
        for node in self.nodes:
            if node.tensor is not None and node.tensor.same_as(tensor):
                return node
        raise KeyError(f"tensor {getattr(tensor, 'name', tensor)!r} is not part of this graph")


def _plain(value):
    """TVM attr values (IntImm, FloatImm, StringImm, Array, Map) as Python values."""
    import tvm
    if isinstance(value, (bool, int, float, str)) or value is None:
        return value
    if isinstance(value, tvm.tirx.IntImm):
        return bool(value.value) if dtype_of(value) == "bool" else int(value.value)
    if isinstance(value, tvm.tirx.FloatImm):
        return float(value.value)
    if isinstance(value, str) or type(value).__name__ in ("String", "StringImm"):
        return str(value.value) if hasattr(value, "value") else str(value)
    if isinstance(value, (list, tuple)) or type(value).__name__ == "Array":
        return tuple(_plain(v) for v in value)
    if hasattr(value, "items"):
        return {str(k): _plain(v) for k, v in value.items()}
    return value


def _shape(tensor) -> tuple:
    return tuple(int(d) if hasattr(d, "value") or isinstance(d, int) else d for d in tensor.shape)


def extract(outputs) -> Graph:
    """The graph of the TVM tensors ``outputs`` (one tensor or a list; surface wrappers accepted), in topological
    order."""
    outputs = raw_tree(outputs)
    outs = list(outputs) if isinstance(outputs, (list, tuple)) else [outputs]
    order: list = []
    index_of: dict = {}

    def visit(tensor):
        key = tensor.op
        for seen_key, idx in index_of.items():
            if seen_key.same_as(key):
                return idx
        inputs = tuple(visit(t) for t in key.input_tensors)
        is_placeholder = type(key).__name__ == "PlaceholderOp"
        attrs = {} if is_placeholder else dict(_plain(key.attrs) or {})
        if "args" in attrs:
            inputs = tuple(inputs[position] for position in attrs.pop("args"))
        node = Node(len(order), str(key.name), "placeholder" if is_placeholder else "compute",
                    "" if is_placeholder else str(key.tag), _shape(tensor), dtype_of(tensor), inputs, attrs,
                    tensor)
        order.append(node)
        index_of[key] = node.index
        return node.index

    out_indices = tuple(visit(t) for t in outs)
    return Graph(tuple(order), out_indices)
