"""Input signatures: ``Cell.set_inputs(*inputs)`` and ``jit(input_signature=...)``.

MindSpore compiles a network once for the signature's shapes, where a ``-1`` dim (``Tensor(shape=[None, 3])``)
takes any size; calling it with inputs that do not fit is an error.  npusim executes eagerly, so a signature
compiles nothing: it is checked against every call, with MindSpore's rules and wording (``Cell``'s
``_check_compile_dynamic_shape``): the same number of inputs, a Tensor where the signature has one, the same dtype,
the same rank (a dynamic-rank signature takes any), and each static dim equal.
"""
from __future__ import annotations

from typing import Sequence

from npusim.errors import InputSignatureError, OpTypeError
from npusim.frontend.dynamic_tensor import UNKNOWN_DIM, UNKNOWN_RANK_SHAPE
from npusim.frontend.tensor import Tensor


def as_signature(value) -> tuple:
    """A signature given as one Tensor, a tuple/list of them, or None → a tuple (empty for None)."""
    if value is None:
        return ()
    if isinstance(value, (tuple, list)):
        return tuple(value)
    return (value,)


def check_inputs(signature: Sequence, inputs: Sequence, who: str = "set_inputs") -> None:
    """Raise InputSignatureError (OpTypeError for a non-Tensor input) when ``inputs`` do not fit ``signature``."""
    if len(signature) != len(inputs):
        raise InputSignatureError(f"The number of '{who}' Tensor must be equal to network's inputs, but got "
                                  f"'{who}': {len(signature)} and network's input: {len(inputs)}.")
    for index, (sig, value) in enumerate(zip(signature, inputs)):
        if not isinstance(sig, Tensor):
            continue
        if not isinstance(value, Tensor):
            raise OpTypeError(f"The {index + 1}th input type of '{who}' must be Tensor, but got {type(value)}.")
        _check_one(index, sig, value, who)


def _check_one(index: int, sig: Tensor, value: Tensor, who: str) -> None:
    if sig.dtype != value.dtype:
        raise InputSignatureError(f"The {index + 1}th input type of '{who}' must be the same as network's input, "
                                  f"but got '{who}': {sig.dtype} and network's input: {value.dtype}.")
    want = tuple(sig.shape)
    if want == UNKNOWN_RANK_SHAPE:
        return
    got = tuple(value.shape)
    if got and len(want) != len(got):
        raise InputSignatureError(f"The {index + 1}th input dims of '{who}' must be the same as network's input, "
                                  f"but got '{who}': {len(want)} and network's input: {len(got)}.")
    if not all(w in (UNKNOWN_DIM, g) for w, g in zip(want, got)):
        raise InputSignatureError(f"The {index + 1}th input shape of '{who}' must be the same as network's input, "
                                  f"but got '{who}': {want} and network's input: {got}.")
