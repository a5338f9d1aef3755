"""MindSpore's ``check_bprop``: a user bprop's gradients against the inputs they belong to.

MindSpore's ``CheckBprop`` (``mindspore.ops.operations._inner_ops``) checks, for a primitive or cell with a user
``bprop``, that it returns one gradient per input argument (``out`` and ``dout`` excluded) and that every gradient
has its argument's shape — and, with ``set_context(check_bprop=True)``, its dtype.  Shapes that are empty (scalars)
are not compared, as in MindSpore.  The messages follow MindSpore's wording, prefixed by what was checked.
"""
from __future__ import annotations

from typing import Sequence

from npusim.errors import BpropCountError, BpropDtypeError, BpropShapeError, OpTypeError
from npusim.frontend import dtype as mstype


def _shape(value):
    shape = getattr(value, "shape", None)
    return tuple(shape) if shape is not None else None


def _dtype(value):
    """The MindSpore dtype of a tensor or array (None for other values)."""
    np_dtype = getattr(getattr(value, "_data", value), "dtype", None)
    if np_dtype is None:
        return None
    try:
        return mstype.to_type(np_dtype)
    except OpTypeError:
        return np_dtype


def check_count(tips: str, n_grads: int, n_inputs: int, n_required: int | None = None) -> None:
    """``n_grads`` gradients for ``n_inputs`` inputs; with ``n_required`` (the tensor inputs) fewer than all are
    accepted down to that many — npusim lets a bprop leave out the gradients of trailing attribute arguments."""
    least = n_inputs if n_required is None else n_required
    if not least <= n_grads <= n_inputs:
        raise BpropCountError(f"For {tips}, the number of return values(gradients) must be equal to the number of "
                              f"input arguments except 'out' and 'dout', which is:{n_inputs} but got {n_grads}.")


def check_grads(tips: str, inputs: Sequence, grads: Sequence, check_dtype: bool = False) -> None:
    """Each gradient has its input's shape (and dtype when ``check_dtype``); None gradients, non-tensor inputs and
    scalar shapes are skipped; a list input (a dynamic input) is compared item by item."""
    for index, (arg, grad) in enumerate(zip(inputs, grads)):
        if grad is None:
            continue
        if isinstance(arg, (list, tuple)) and isinstance(grad, (list, tuple)) and len(arg) == len(grad):
            check_grads(f"{tips} (item of argument {index})", arg, grad, check_dtype)
            continue
        want, got = _shape(arg), _shape(grad)
        if want is None or got is None or not want or not got:
            continue
        if want != got:
            raise BpropShapeError(f"For {tips}, the {index}th return value(gradient of the {index}th argument) "
                                  f"should have the same shape as the {index}th argument, which is:{want}, "
                                  f"but got: {got}.")
        if check_dtype and _dtype(arg) is not None and _dtype(arg) != _dtype(grad):
            raise BpropDtypeError(f"For {tips}, the {index}th return value(gradient of the {index}th argument) "
                                  f"should have the same dtype as the {index}th argument, which is:"
                                  f"{_dtype(arg)}, but got: {_dtype(grad)}.")
