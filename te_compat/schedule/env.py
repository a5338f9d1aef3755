"""What an emitter gets for one node: the output buffer, operand buffers (or constants) and its temporaries."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from te_compat.schedule.common import UnsupportedPattern
from te_compat.schedule.operands import operand_dtype


@dataclass(frozen=True)
class ConstArg:
    """An operand that is a constant (a ``broadcast`` node or an immediate in the compute body)."""

    value: object


@dataclass(frozen=True)
class PlanEnv:
    """The facts temp planning needs: the analysis, node, layouts of every node, chip, and the operand nodes
    that die at this node (their buffers may be clobbered)."""

    an: object
    index: int
    layouts: dict
    chip: object
    dying: frozenset

    @property
    def info(self):
        return self.an.infos[self.index]

    @property
    def node(self):
        return self.an.graph.nodes[self.index]

    @property
    def layout(self):
        return self.layouts[self.index]

    def operand_dtype(self, position: int) -> str:
        """The dtype operand ``position`` is read in (an immediate takes the dtype the op computes in)."""
        return operand_dtype(self.an.graph, self.an.infos, self.index, position)

    def is_const(self, position: int) -> bool:
        operand = self.info.operands[position]
        return operand.is_const or self.an.is_virtual(operand.node)


@dataclass(frozen=True)
class NodeEnv:
    """Emission inputs for one node.  args: a Buf or ConstArg per operand; temps: Bufs (uint8) in plan order;
    acc: the accumulator Buf of a reduce in accumulate mode."""

    em: object
    plan: PlanEnv
    out: object
    args: tuple
    temps: tuple
    slot: int
    acc: Optional[object] = None

    @property
    def info(self):
        return self.plan.info

    @property
    def dtype(self) -> str:
        return self.plan.node.dtype

    @property
    def n(self) -> int:
        """Elements an element-wise op over this node's tile covers."""
        return self.plan.layout.flat

    def fail(self, cause: str) -> UnsupportedPattern:
        node = self.plan.node
        return UnsupportedPattern(f"{node.tag or 'compute'} node {node.name} ({node.dtype}): {cause}")


def same_buffer(a, b) -> bool:
    """Whether two Bufs are the same bytes (an in-place op)."""
    return getattr(a, "arena", None) == getattr(b, "arena", None) and getattr(a, "offset", -1) == \
        getattr(b, "offset", -2)


def const_value(an, operand):
    """The value of a constant operand (immediate or ``broadcast`` node)."""
    if operand.is_const:
        return operand.value
    return an.infos[operand.node].scalar
