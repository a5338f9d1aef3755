"""Graph analysis: OpInfos, canonical axes, the reduce axis, stages and the pattern name TBE would pick.

Patterns: "elewise" (every real tensor has the full shape), "broadcast" (some tensor is expanded along an
axis), "reduce_last" / "reduce_nlast" / "reduce_all" (reduces, results not expanded back), "norm" (a reduce
result is broadcast back over the reduced axis, e.g. softmax).  Anything else raises UnsupportedPattern.
"""
from __future__ import annotations

from dataclasses import dataclass

from te_compat.graph import extract
from te_compat.schedule.axes import Canon, canonicalize
from te_compat.schedule.common import UnsupportedPattern
from te_compat.schedule.fold import fold_constants
from te_compat.schedule.operands import op_info

# operand positions an instruction reads as a UB tensor (a constant there is filled into a buffer by vector_dup)
_BUFFER_OPERANDS = {"unary": (0,), "vs": (0,), "cast": (0,), "logic": (0, 1), "reduce": (0,), "axpy": (0,),
                    "sel": (0,)}

@dataclass(frozen=True)
class Analysis:
    """Everything the tiler and emitters need to know about a graph.

    outputs: node indices written to GM.  infos: node index -> OpInfo.  canon: the (A, B, C) form.
    reduce_axis: 1 (B) or 2 (C) when the graph reduces, else None.  reduce_outer: the reduces also reduce A
    (reduce_axis is then 2; tiles are one A row and accumulate across A and C).  post: nodes computed from a
    reduce result (they run once per reduced group).  resident: some post node has the reduce axis again
    (broadcast back), so a tile must hold the whole reduce axis.  bits: cmp nodes kept as bit masks in UB.
    pattern: the name.  materialized: constant nodes an instruction must read from UB (filled by vector_dup).
    Constant-only element-wise nodes are folded into constants (:mod:`te_compat.schedule.fold`).
    """

    graph: object
    outputs: tuple
    infos: dict
    canon: Canon
    reduce_axis: object
    post: frozenset
    resident: bool
    bits: frozenset
    pattern: str
    reduce_outer: bool = False
    materialized: frozenset = frozenset()

    def mask(self, index: int) -> tuple:
        return self.canon.masks[index]

    def is_virtual(self, index: int) -> bool:
        """Constant tensors live nowhere (unless written out or read as a tensor): uses fold the value in (VS
        ops, vector_dup)."""
        return self.infos[index].kind == "const" and index not in self.outputs and index not in self.materialized

    def operand_nodes(self, index: int) -> list:
        """The nodes node ``index`` reads (immediate operands left out)."""
        return [o.node for o in self.infos[index].operands if not o.is_const]

    @property
    def reducing(self) -> tuple:
        """The reduce nodes that reduce a real axis (not only extent-1 dims)."""
        return tuple(i for i, axis in self.canon.reduced.items() if axis is not None)

    def consumers(self, index: int) -> tuple:
        return tuple(n.index for n in self.graph.nodes
                     if any(o.node == index for o in self.infos[n.index].operands))


def analyze(outs, extra_outputs=(), chip=None) -> Analysis:
    """Analyse the DSL graph of ``outs`` (plus ``extra_outputs`` tensors that must also be written); constants
    fold with the instructions of ``chip`` (required: a Chip)."""
    if chip is None:
        raise TypeError("analyze() needs the chip whose instructions constants fold with")
    tensors = list(outs) if isinstance(outs, (list, tuple)) else [outs]
    graph = extract(tensors + [t for t in extra_outputs if not any(t.same_as(o) for o in tensors)])
    infos = {n.index: op_info(graph, n) for n in graph.nodes}
    outputs = tuple(dict.fromkeys(graph.outputs))
    for index in outputs:
        if infos[index].kind == "input":
            raise UnsupportedPattern(f"output {graph.nodes[index].name} is a placeholder (no computation)")
    canon = canonicalize(graph, infos)
    infos = fold_constants(graph, infos, chip)
    materialized = _materialized(graph, infos, outputs)
    reduce_axis = _reduce_axis(graph, canon)
    reduce_outer = _reduce_outer(graph, canon)
    post = _post_nodes(graph, infos, canon, materialized)
    _check_outputs(graph, canon, outputs, post if reduce_outer else ())
    resident = reduce_axis is not None and any(canon.masks[i][reduce_axis] for i in post)
    if reduce_outer and (resident or any(canon.masks[i][0] for i in post)):
        raise UnsupportedPattern("a result of a reduce over separated axes is broadcast back over them")
    bits = _bit_nodes(graph, infos, outputs)
    pattern = _pattern(graph, infos, canon, reduce_axis, resident)
    return Analysis(graph, outputs, infos, canon, reduce_axis, frozenset(post), resident, bits, pattern,
                    reduce_outer, materialized)


def _materialized(graph, infos: dict, outputs: tuple) -> frozenset:
    """Constant nodes some instruction reads as a UB tensor (a cast, unary or reduce input, a select condition,
    one side of a binary op whose both sides stayed constant)."""
    def virtual(operand) -> bool:
        return operand.is_const or (infos[operand.node].kind == "const" and operand.node not in outputs)
    chosen = set()
    for node in graph.nodes:
        info = infos[node.index]
        positions = _BUFFER_OPERANDS.get(info.kind, ())
        if info.kind == "binary" and all(virtual(o) for o in info.operands):
            positions = tuple(p for p, o in enumerate(info.operands) if not o.is_const)[:1]
        for position in positions[:len(info.operands)]:
            operand = info.operands[position]
            if not operand.is_const and infos[operand.node].kind == "const":
                chosen.add(operand.node)
    return frozenset(chosen - set(outputs))


def _reduce_axis(graph, canon: Canon):
    axes = {axis for axis in canon.reduced.values() if axis is not None}
    if len(axes) > 1:
        raise UnsupportedPattern("reduces over different axes in one graph")
    axis = axes.pop() if axes else None
    if axis == 0 and canon.extents[0] > 1:
        raise UnsupportedPattern("a reduce over the outermost of three independent axes")
    return axis


def _reduce_outer(graph, canon: Canon) -> bool:
    """Whether the graph's reduces also reduce the outer axis A (then every real reduce must)."""
    real = [i for i, axis in canon.reduced.items() if axis is not None]
    outer = [i for i in real if i in canon.outer_reduced]
    if outer and len(outer) != len(real):
        raise UnsupportedPattern("reduces over different axes in one graph")
    return bool(outer) and canon.extents[0] > 1


def _check_outputs(graph, canon: Canon, outputs: tuple, reduced_results=()) -> None:
    if canon.extents[0] > 1:
        for index in outputs:
            if not canon.masks[index][0] and index not in reduced_results:
                raise UnsupportedPattern(f"output {graph.nodes[index].name} does not span the outer axis")


def _post_nodes(graph, infos: dict, canon: Canon, materialized: frozenset) -> set:
    post: set = set()
    for node in graph.nodes:
        info = infos[node.index]
        if info.kind == "reduce" and canon.reduced.get(node.index) is not None:
            post.add(node.index)
        elif any(o.node in post for o in info.operands if not o.is_const):
            post.add(node.index)
    for index in materialized:      # a constant read only after the reduce is filled in the group stage
        users = [n.index for n in graph.nodes if any(o.node == index for o in infos[n.index].operands)]
        if users and all(u in post and infos[u].kind != "reduce" for u in users):
            post.add(index)
    return post


def _bit_nodes(graph, infos: dict, outputs: tuple) -> frozenset:
    """cmp nodes whose every use reads bits (a select's condition or a cast) stay bit masks in UB."""
    bits = set()
    for node in graph.nodes:
        if infos[node.index].kind != "cmp":
            continue
        uses = [(infos[n.index], pos) for n in graph.nodes for pos, o in enumerate(infos[n.index].operands)
                if o.node == node.index]
        if all((info.kind == "sel" and pos == 0) or info.kind == "cast" for info, pos in uses):
            bits.add(node.index)
    return frozenset(bits)


def _pattern(graph, infos: dict, canon: Canon, reduce_axis, resident: bool) -> str:
    if reduce_axis is not None:
        if resident:
            return "norm"
        if reduce_axis == 2:
            return "reduce_all" if canon.extents[:2] == (1, 1) else "reduce_last"
        return "reduce_nlast"
    real = [n.index for n in graph.nodes if infos[n.index].kind != "const"]
    if all(canon.masks[i] == canon.masks[real[0]] for i in real):
        return "elewise"
    return "broadcast"
