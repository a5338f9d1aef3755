"""Canonical axes: every tensor of the graph as a sub-shape of one iteration space (A, B, C).

Dims of different tensors that are the same loop (operands of an element-wise op, a broadcast's input dims
right-aligned to its output, a reduce's kept dims) are unified; each class of dims is one axis of the full
space, ordered consistently with every tensor's dim order.  A tensor *has* an axis when its dim there has the
full extent (extent 1 = broadcast or reduced away).  Adjacent axes that every tensor has or lacks alike are
fused, axes of extent 1 dropped; at most three remain, right-aligned into (A, B, C).
"""
from __future__ import annotations

from dataclasses import dataclass
from math import prod

from te_compat.schedule.common import UnsupportedPattern
from te_compat.schedule.operands import ELEMENTWISE_KINDS


@dataclass(frozen=True)
class Canon:
    """extents: (A, B, C).  masks: node index -> (has A, has B, has C).  reduced: reduce node -> canonical axis
    index (1 = B, 2 = C) or None when it reduces only extent-1 dims (an identity).  outer_reduced: reduce nodes
    that reduce A as well as C (their ``reduced`` is 2): separated reduce axes such as [0, 2] of a 3-d tensor
    or BatchNorm's [0, 2, 3] of NCHW."""

    extents: tuple
    masks: dict
    reduced: dict
    outer_reduced: frozenset = frozenset()


class _Classes:
    """Union-find over (node, dim) keys."""

    def __init__(self):
        self.parent: dict = {}

    def find(self, key):
        self.parent.setdefault(key, key)
        while self.parent[key] != key:
            self.parent[key] = self.parent[self.parent[key]]
            key = self.parent[key]
        return key

    def union(self, a, b) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[rb] = ra


def canonicalize(graph, infos: dict) -> Canon:
    """The canonical (A, B, C) form of ``graph`` whose nodes have OpInfos ``infos``."""
    classes = _Classes()
    reduced_dims = {}
    for node in graph.nodes:
        for d in range(len(node.shape)):
            classes.find((node.index, d))
        reduced_dims[node.index] = _unify(graph, node, infos[node.index], classes)
    _align_components(graph, classes)
    _align_new_dims(graph, infos, classes)
    extent = _class_extents(graph, classes)
    order = _class_order(graph, classes, extent)
    presence = {n.index: _presence(n, classes, extent, order) for n in graph.nodes}
    groups = _fuse(order, presence, graph)
    if len(groups) > 3:
        raise UnsupportedPattern(f"the graph needs {len(groups)} independent axes after fusion (at most 3 map)")
    pad = 3 - len(groups)
    extents = (1,) * pad + tuple(prod(extent[c] for c in g) for g in groups)
    masks = {i: (False,) * pad + tuple(all(p[c] for c in g) for g in groups) for i, p in presence.items()}
    reduced, outer = {}, set()
    for index, dims in reduced_dims.items():
        if dims is None:
            continue
        hit = {pad + gi for gi, g in enumerate(groups) for c in g if c in {classes.find(k) for k in dims}}
        if hit == {0, 2}:       # (R1, K, R2): the last axis per tile, the outer one across tiles
            outer.add(index)
            hit = {2}
        if len(hit) > 1:
            raise UnsupportedPattern(f"reduce node {graph.nodes[index].name} reduces several separated axes")
        reduced[index] = hit.pop() if hit else None
    return Canon(extents, masks, reduced, frozenset(outer))


def _align_components(graph, classes: _Classes) -> None:
    """Independent sub-graphs (``tuple_sum`` of several tensors, two outputs of unrelated inputs) share one
    iteration space when their largest tensors have the same shape: those tensors' dims are unified by position."""
    component = _Classes()
    for node in graph.nodes:
        component.find(node.index)
        for src in node.inputs:
            component.union(node.index, src)
    largest: dict = {}
    for node in graph.nodes:
        root = component.find(node.index)
        if root not in largest or prod(node.shape) > prod(largest[root].shape):
            largest[root] = node
    leaders = list(largest.values())
    for other in leaders[1:]:
        if tuple(other.shape) == tuple(leaders[0].shape):
            for d in range(len(other.shape)):
                classes.union((leaders[0].index, d), (other.index, d))


def _align_new_dims(graph, infos: dict, classes: _Classes) -> None:
    """A broadcast to a higher rank creates leading dims no operand has; when nothing else links them (the
    broadcast is itself an output), they are the dims of another tensor of exactly the same shape."""
    for node in graph.nodes:
        info = infos[node.index]
        if info.kind != "bcast" or len(graph.nodes[info.operands[0].node].shape) == len(node.shape):
            continue
        twin = next((n for n in graph.nodes if n.index != node.index and tuple(n.shape) == tuple(node.shape)
                     and infos[n.index].kind != "bcast"), None)
        if twin is not None:
            for d in range(len(node.shape)):
                classes.union((twin.index, d), (node.index, d))


def _unify(graph, node, info, classes: _Classes):
    """Union the dims ``node`` shares with its operands; returns a reduce node's reduced input dims."""
    if info.kind in ELEMENTWISE_KINDS:
        for operand in info.operands:
            if operand.is_const:
                continue
            src = graph.nodes[operand.node]
            if tuple(src.shape) != tuple(node.shape):
                raise UnsupportedPattern(f"{node.tag} node {node.name}: operand shape {src.shape} differs from "
                                         f"{node.shape}")
            for d in range(len(node.shape)):
                classes.union((node.index, d), (src.index, d))
    elif info.kind == "bcast":
        _unify_broadcast(graph.nodes[info.operands[0].node], node, classes)
    elif info.kind == "reduce":
        return _unify_reduce(graph.nodes[info.operands[0].node], node, info, classes)
    return None


def _unify_broadcast(src, node, classes: _Classes) -> None:
    offset = len(node.shape) - len(src.shape)
    if offset < 0:
        raise UnsupportedPattern(f"broadcast {node.name}: input rank {len(src.shape)} > output rank")
    for d, size in enumerate(src.shape):
        if size not in (1, node.shape[d + offset]):
            raise UnsupportedPattern(f"broadcast {node.name}: dim {d} of {src.shape} cannot broadcast to "
                                     f"{node.shape}")
        classes.union((node.index, d + offset), (src.index, d))


def _unify_reduce(src, node, info, classes: _Classes) -> list:
    rank = len(src.shape)
    axes = sorted({a % rank for a in info.axes}) if rank else []
    kept = [d for d in range(rank) if d not in axes]
    if info.keepdims or len(node.shape) == rank:
        pairs = [(d, d) for d in range(rank)]
    elif len(node.shape) == len(kept):
        pairs = list(zip(range(len(kept)), kept))
    elif not kept and tuple(node.shape) in ((1,), ()):
        pairs = []
    else:
        raise UnsupportedPattern(f"reduce {node.name}: output shape {node.shape} does not match axes {axes}")
    for out_dim, in_dim in pairs:
        classes.union((node.index, out_dim), (src.index, in_dim))
    return [(src.index, d) for d in axes]


def _class_extents(graph, classes: _Classes) -> dict:
    extent: dict = {}
    for node in graph.nodes:
        for d, size in enumerate(node.shape):
            if not isinstance(size, int):
                raise UnsupportedPattern(f"{node.name} has a non-constant dim {size!r}")
            root = classes.find((node.index, d))
            extent[root] = max(extent.get(root, 1), size)
    for node in graph.nodes:
        for d, size in enumerate(node.shape):
            if size not in (1, extent[classes.find((node.index, d))]):
                raise UnsupportedPattern(f"{node.name}: dim {d} ({size}) conflicts with the unified extent")
    return extent


def _class_order(graph, classes: _Classes, extent: dict) -> list:
    """Classes of extent > 1 in an order consistent with every node's dim order (topological)."""
    roots = []
    for node in sorted(graph.nodes, key=lambda n: -len(n.shape)):
        for d in range(len(node.shape)):
            root = classes.find((node.index, d))
            if extent[root] > 1 and root not in roots:
                roots.append(root)
    after = {r: set() for r in roots}
    for node in graph.nodes:
        seq = [classes.find((node.index, d)) for d in range(len(node.shape))]
        seq = [r for r in seq if extent[r] > 1]
        for i, r in enumerate(seq):
            after[r].update(seq[i + 1:])
    order, placed = [], set()
    while len(order) < len(roots):
        ready = [r for r in roots if r not in placed and not any(r in after[o] for o in roots if o not in placed)]
        if not ready:
            raise UnsupportedPattern("the tensors' dim orders are inconsistent (a transposed layout)")
        order.append(ready[0])
        placed.add(ready[0])
    return [(r, extent[r]) for r in order]


def _presence(node, classes: _Classes, extent: dict, order: list) -> dict:
    present = {classes.find((node.index, d)) for d, size in enumerate(node.shape) if size > 1}
    return {root: root in present for root, _ in order}


def _fuse(order: list, presence: dict, graph) -> list:
    groups: list = []
    for root, _ in order:
        if groups:
            last = groups[-1][-1]
            if all(presence[n.index][last] == presence[n.index][root] for n in graph.nodes):
                groups[-1].append(root)
                continue
        groups.append([root])
    return groups
