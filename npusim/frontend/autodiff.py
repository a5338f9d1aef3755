"""Reverse-mode automatic differentiation: a tape of nodes recorded while a gradient function runs.

How it works:
* ``GradOperation`` / ``ms.grad`` open a :class:`Tape`, mark the tensors whose gradients are wanted (``watch``) and
  run the forward function.  Every primitive whose inputs are tracked records a :class:`Node` (its backward rule and
  its tensor inputs) and attaches it to its outputs.
* :func:`backpropagate` walks the nodes of that tape from the output back to the watched leaves, calling each node's
  backward rule with the output gradients (``dout``) and accumulating input gradients.
Backward rules run with recording suspended (first-order gradients only).  Nodes belong to one tape; tensors made
under an earlier tape are constants for a later one.
"""
from __future__ import annotations

import threading
from typing import Callable, Optional, Sequence


class _State(threading.local):
    def __init__(self):
        self.tape: Optional["Tape"] = None


_state = _State()


class Tape:
    """The record of one gradient computation."""

    def __init__(self):
        self.leaf_ids: dict[int, object] = {}

    def watch(self, tensor) -> None:
        self.leaf_ids[id(tensor)] = tensor

    def __enter__(self):
        self._outer = _state.tape
        _state.tape = self
        return self

    def __exit__(self, *exc):
        _state.tape = self._outer
        return False


class suspended:
    """Context manager: no recording inside (used while backward rules run)."""

    def __enter__(self):
        self._outer = _state.tape
        _state.tape = None

    def __exit__(self, *exc):
        _state.tape = self._outer
        return False


class Node:
    """One recorded primitive application.

    backward(douts) receives one gradient Tensor per output (zeros filled in for outputs nobody used, or None
    there when ``materialize`` is false) and returns one gradient (Tensor or None) per entry of ``inputs``.
    """

    __slots__ = ("name", "inputs", "backward", "out_shapes", "out_dtypes", "tape", "materialize")

    def __init__(self, name: str, inputs: tuple, backward: Callable, outputs: Sequence, tape: Tape,
                 materialize: bool = True):
        self.name = name
        self.inputs = inputs
        self.backward = backward
        self.out_shapes = [o.shape for o in outputs]
        self.out_dtypes = [o._data.dtype for o in outputs]
        self.tape = tape
        self.materialize = materialize


def recording() -> bool:
    return _state.tape is not None


def current_tape() -> Optional[Tape]:
    """The tape recording now (None outside a gradient computation and while backward rules run)."""
    return _state.tape


def needs_grad(tensor) -> bool:
    """Whether the recording tape tracks ``tensor`` (a watched leaf or the output of a recorded node)."""
    tape = _state.tape
    return tape is not None and _tracked(tensor, tape)


def is_leaf(tensor) -> bool:
    """Whether ``tensor`` is a leaf the recording tape watches (an input or weight being differentiated)."""
    tape = _state.tape
    if tape is None or id(tensor) not in tape.leaf_ids:
        return False
    node = getattr(tensor, "_node", None)
    return node is None or node.tape is not tape


def _tracked(tensor, tape: Tape) -> bool:
    node = getattr(tensor, "_node", None)
    return (node is not None and node.tape is tape) or id(tensor) in tape.leaf_ids


def record(name: str, inputs: Sequence, outputs: Sequence, backward: Callable,
           materialize_grads: bool = True) -> None:
    """Attach a Node to ``outputs`` if a tape is active and any tensor input is tracked by it.
    ``materialize_grads=False``: the backward rule gets None (not zeros) for outputs nobody used."""
    tape = _state.tape
    if tape is None:
        return
    tensor_inputs = tuple(x for x in inputs if hasattr(x, "_node"))
    if not any(_tracked(x, tape) for x in tensor_inputs):
        return
    node = Node(name, tuple(inputs), backward, outputs, tape, materialize_grads)
    for index, out in enumerate(outputs):
        out._node = node
        out._node_index = index


def _key(tensor, tape):
    node = getattr(tensor, "_node", None)
    if node is not None and node.tape is tape:
        return (id(node), tensor._node_index)
    return id(tensor)


def _topological_nodes(roots, tape) -> list:
    """Nodes reachable from ``roots`` (this tape only), each after every node that consumes its outputs."""
    order, seen = [], set()
    stack = [(r._node, False) for r in roots if getattr(r, "_node", None) is not None and r._node.tape is tape]
    while stack:
        node, done = stack.pop()
        if done:
            order.append(node)
            continue
        if id(node) in seen:
            continue
        seen.add(id(node))
        stack.append((node, True))
        for inp in node.inputs:
            parent = getattr(inp, "_node", None)
            if parent is not None and parent.tape is tape and id(parent) not in seen:
                stack.append((parent, False))
    order.reverse()
    return order


def backpropagate(tape: Tape, roots: Sequence, sens: Sequence) -> dict:
    """Gradients of sum(roots[i] * sens[i]) keyed by id() of every tracked leaf reached."""
    from npusim.frontend.tensor import Tensor, accumulate, zeros_for

    grads: dict = {}
    for root, s in zip(roots, sens):
        key = _key(root, tape)
        grads[key] = accumulate(grads.get(key), s)
    with suspended():
        for node in _topological_nodes(roots, tape):
            douts = [grads.pop((id(node), i), None) for i in range(len(node.out_shapes))]
            if all(d is None for d in douts):
                continue
            if node.materialize:
                douts = [zeros_for(s, dt) if d is None else d
                         for d, s, dt in zip(douts, node.out_shapes, node.out_dtypes)]
            in_grads = node.backward(douts)
            for inp, g in zip(node.inputs, in_grads):
                if g is None or not isinstance(inp, Tensor):
                    continue
                key = _key(inp, tape)
                grads[key] = accumulate(grads.get(key), g)
    return grads
