"""Gradient transforms: ``ops.GradOperation``, ``mindspore.grad`` and ``mindspore.value_and_grad``."""
from __future__ import annotations

import numpy as np

from npusim.errors import OpTypeError, OpValueError
from npusim.frontend import autodiff
from npusim.frontend.tensor import Tensor


def _as_list(out):
    return list(out) if isinstance(out, (tuple, list)) else [out]


def _ones_sens(outputs):
    sens = []
    for out in outputs:
        if not isinstance(out, Tensor):
            raise OpTypeError(f"grad: the function must return Tensors, got {type(out).__name__}")
        sens.append(Tensor._wrap(np.ones(out.shape, dtype=out._data.dtype)))
    return sens


def _run(fn, args, weights, sens_given):
    """Run fn on watched copies of the Tensor args; return (output, positions of tensors, grads dict, leaves)."""
    tape = autodiff.Tape()
    leaves = []
    call_args = []
    for arg in args:
        if isinstance(arg, Tensor):
            alias = Tensor._wrap(arg._data)
            tape.watch(alias)
            leaves.append(alias)
            call_args.append(alias)
        else:
            leaves.append(None)
            call_args.append(arg)
    for weight in weights:
        tape.watch(weight)
    with tape:
        output = fn(*call_args)
    return tape, output, leaves


def _grad_of(grads, leaf):
    if leaf is None:
        return None
    g = grads.get(id(leaf))
    return g if g is not None else Tensor._wrap(np.zeros(leaf.shape, dtype=leaf._data.dtype))


def _differentiate(fn, args, weights, sens=None, has_aux=False):
    """Forward + backward; returns (output, grads of args (list, None for non-tensors), grads of weights)."""
    weights = list(weights or [])
    tape, output, leaves = _run(fn, args, weights, sens is not None)
    outputs = _as_list(output)
    if has_aux:
        outputs = outputs[:1]
    if sens is None:
        sens_list = _ones_sens(outputs)
    else:
        sens_list = _as_list(sens)
        if len(sens_list) != len(outputs):
            raise OpValueError(f"grad: {len(outputs)} outputs but {len(sens_list)} sensitivities given")
        sens_list = [s if isinstance(s, Tensor) else Tensor(s) for s in sens_list]
    grads = autodiff.backpropagate(tape, [o for o in outputs if isinstance(o, Tensor)], sens_list)
    arg_grads = [_grad_of(grads, leaf) for leaf in leaves]
    weight_grads = [_grad_of(grads, w) for w in weights]
    return output, arg_grads, weight_grads


class GradOperation:
    """``GradOperation(get_all=False, get_by_list=False, sens_param=False)(fn[, weights])(*inputs[, sens])``."""

    def __init__(self, get_all=False, get_by_list=False, sens_param=False):
        self.get_all, self.get_by_list, self.sens_param = bool(get_all), bool(get_by_list), bool(sens_param)

    def __call__(self, fn, weights=None):
        if self.get_by_list and weights is None:
            raise OpTypeError("GradOperation(get_by_list=True) needs the weights: GradOperation(...)(net, weights)")
        weight_list = list(weights) if weights is not None else []

        def grad_fn(*args):
            sens = None
            if self.sens_param:
                if not args:
                    raise OpValueError("GradOperation(sens_param=True): the last input must be the sensitivity")
                args, sens = args[:-1], args[-1]
            _, arg_grads, weight_grads = _differentiate(fn, args, weight_list, sens)
            input_grads = tuple(g for g in arg_grads if g is not None)
            if self.get_all and self.get_by_list:
                return input_grads, tuple(weight_grads)
            if self.get_by_list:
                return tuple(weight_grads)
            if self.get_all:
                return input_grads
            if not input_grads:
                raise OpValueError("GradOperation: the function has no Tensor input to differentiate")
            return input_grads[0]

        return grad_fn


def _select_positions(arg_grads, grad_position):
    if grad_position is None:
        return None
    positions = (grad_position,) if isinstance(grad_position, int) else tuple(grad_position)
    picked = []
    for pos in positions:
        if not -len(arg_grads) <= pos < len(arg_grads):
            raise OpValueError(f"grad: grad_position {pos} is out of range for {len(arg_grads)} inputs")
        g = arg_grads[pos]
        if g is None:
            raise OpTypeError(f"grad: input {pos} is not a Tensor and cannot be differentiated")
        picked.append(g)
    return picked[0] if isinstance(grad_position, int) else tuple(picked)


def _shape_result(arg_grads, weight_grads, grad_position, weights):
    inputs = _select_positions(arg_grads, grad_position)
    if weights is None:
        return inputs
    if grad_position is None:
        return tuple(weight_grads)
    return inputs, tuple(weight_grads)


def _weights_list(weights):
    if weights is None:
        return None
    if isinstance(weights, Tensor):
        return [weights]
    return list(weights)


def grad(fn, grad_position=0, weights=None, has_aux=False, return_ids=False):
    """``mindspore.grad``: int position → one gradient; tuple → tuple; with weights → (inputs, weights)."""
    if grad_position is None and weights is None:
        raise OpValueError("grad: 'grad_position' and 'weights' cannot both be None")
    weight_list = _weights_list(weights)

    def grad_fn(*args):
        output, arg_grads, weight_grads = _differentiate(fn, args, weight_list or [], has_aux=has_aux)
        result = _shape_result(arg_grads, weight_grads, grad_position, weight_list)
        if has_aux:
            return result, tuple(_as_list(output)[1:])
        return result

    return grad_fn


def value_and_grad(fn, grad_position=0, weights=None, has_aux=False, return_ids=False):
    """``mindspore.value_and_grad``: returns (fn's output, gradients shaped as ``grad`` shapes them)."""
    if grad_position is None and weights is None:
        raise OpValueError("value_and_grad: 'grad_position' and 'weights' cannot both be None")
    weight_list = _weights_list(weights)

    def value_grad_fn(*args):
        output, arg_grads, weight_grads = _differentiate(fn, args, weight_list or [], has_aux=has_aux)
        return output, _shape_result(arg_grads, weight_grads, grad_position, weight_list)

    return value_grad_fn
