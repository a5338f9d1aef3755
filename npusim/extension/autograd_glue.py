"""How a C++ ``Function<T>::Apply`` (npusim's ms_extension headers) joins npusim's gradient tape.

The C++ side decides MindSpore's rules (which outputs are differentiable, which inputs were modified in place,
the checks on Backward's gradients); this module records the one tape node:

* its inputs are the op's tensor inputs, except that an input modified in place (``MarkDirty``) and returned is
  replaced by an alias holding its previous version, so the tensor itself can take the new node;
* its outputs are the differentiable outputs;
* its backward rule hands the C++ ``Backward`` one gradient per output: None for non-differentiable outputs and
  for outputs nobody used, replaced by zeros unless ``SetMaterializeGrads(false)``.
"""
from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from npusim.frontend import autodiff
from npusim.frontend.tensor import Tensor


def grad_flags(inputs: Sequence) -> list:
    """Whether each tensor input (a Tensor, or None for a C++-only tensor) needs a gradient now."""
    return [x is not None and autodiff.needs_grad(x) for x in inputs]


def _previous_version(tensor: Tensor) -> Tensor:
    """An alias of ``tensor``'s memory carrying its current place on the tape (before an in-place op)."""
    old = Tensor._wrap(tensor._data)
    old._node, old._node_index = tensor._node, tensor._node_index
    return old


def record_function(name: str, inputs: Sequence, outputs: Sequence, differentiable: Sequence[bool],
                    dirty: Sequence[bool], materialize: bool, backward: Callable) -> None:
    """Record one node of a C++ Function on the current tape.

    inputs: the tensor inputs in order (None for C++-only tensors); outputs: every output Tensor;
    differentiable[i] / dirty[i]: output i carries a gradient / is an input modified in place;
    backward(grads): the C++ Backward (one gradient or None per output in, one per tensor input out).
    """
    node_inputs = list(inputs)
    for out, is_dirty in zip(outputs, dirty):
        if is_dirty:
            for j, inp in enumerate(node_inputs):
                if inp is out:
                    node_inputs[j] = _previous_version(out)
    metas = [(o.shape, o._data.dtype) for o in outputs]
    flags = tuple(bool(d) for d in differentiable)
    diff_outputs = [o for o, d in zip(outputs, flags) if d]
    if not diff_outputs:
        return

    def rule(douts):
        grads, given = [], iter(douts)
        for (shape, dtype), is_diff in zip(metas, flags):
            grad = next(given) if is_diff else None
            if grad is None and materialize:
                grad = Tensor._wrap(np.zeros(shape, dtype=dtype))
            grads.append(grad)
        return backward(grads)

    autodiff.record(name, tuple(node_inputs), diff_outputs, rule, materialize_grads=materialize)


def needs_grad(tensor) -> bool:
    """Whether the recording tape tracks ``tensor``."""
    return autodiff.needs_grad(tensor)


def is_leaf(tensor) -> bool:
    """Whether ``tensor`` is a leaf whose gradient is being computed."""
    return autodiff.is_leaf(tensor)


def recording() -> bool:
    return autodiff.recording()


def suspended():
    """A context manager that stops recording (Forward runs inside one)."""
    return autodiff.suspended()


__all__ = ["grad_flags", "record_function", "needs_grad", "is_leaf", "recording", "suspended"]
