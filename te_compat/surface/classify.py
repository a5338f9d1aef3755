"""``classify`` and ``variable_shape`` of the dynamic-shape style, run with concrete shapes ("static" mode).

A 2022 op file builds one compute per input combination::

    ins = classify([x, y], OpPatternMode.ELEWISE_WITH_BROADCAST)
    for (_x, _y) in ins:
        with tbe.compute():
            shape_x, shape_y = shape_util.variable_shape([_x, _y])
            ...

npusim compiles each op per concrete shape, so ``classify`` returns exactly one combination: copies of the input
dicts with concrete shapes (a -1 whose ``range`` pins it is replaced by that value; broadcast mode left-pads ranks
with 1s like CANN; reduce mode normalises the axes input into ``{"shape", "value"}`` and shapes the after-reduce
inputs, see :mod:`te_compat.surface.classify_reduce`), and ``variable_shape`` returns those concrete dims, so the rest of the op builds an ordinary static graph.  A dimension that stays
unknown raises :class:`~npusim.errors.TbeArgumentError` saying npusim compiles per concrete shape.
"""
from __future__ import annotations

from npusim.errors import TbeArgumentError, TbeTypeError, UnsupportedError
from te_compat.surface.checks import pinned_shape, pinned_tensor, with_shape
from te_compat.surface.classify_reduce import classify_reduce, reduce_variable_shape
from te_compat.surface.shapes import unify_broadcast_shapes


class OpPatternMode:
    """The classify modes (CANN's values)."""

    NONE = ""
    ELEWISE = "elewise"
    ELEWISE_WITH_BROADCAST = "broadcast"
    REDUCE = "reduce"
    NORM = "norm"
    TRANSDATA = "transdata"
    TUPLE_REDUCE = "tuple_reduce"
    GATHER = "gather"


class OpImplMode:
    """Precision/performance implementation modes (``impl_mode`` attribute values)."""

    HIGH_PERFORMANCE = "high_performance"
    HIGH_PRECISION = "high_precision"
    SUPER_PERFORMANCE = "super_performance"


SUPPORTED_MODES = (OpPatternMode.ELEWISE, OpPatternMode.ELEWISE_WITH_BROADCAST, OpPatternMode.REDUCE)


def classify(ins, mode, extra_params=None):
    """The input combinations to build (one, with concrete shapes) for ``mode`` (elewise, broadcast, reduce)."""
    if extra_params is not None and not isinstance(extra_params, dict):
        raise TbeTypeError(f"classify: extra_params must be a dict, got {type(extra_params).__name__}")
    if not isinstance(ins, (list, tuple)) or not ins:
        raise TbeArgumentError(f"classify needs a non-empty list of input dicts, got {ins!r}")
    if mode not in SUPPORTED_MODES:
        raise UnsupportedError(f"classify mode {mode!r} is not supported by npusim (supported: "
                               f"{', '.join(SUPPORTED_MODES)})")
    if mode == OpPatternMode.REDUCE:
        return classify_reduce(list(ins), extra_params or {})
    tensors = [pinned_tensor(item, i) for i, item in enumerate(ins)]
    if mode == OpPatternMode.ELEWISE_WITH_BROADCAST:
        *padded, _ = unify_broadcast_shapes([t["shape"] for t in tensors], op_name="classify",
                                            param_name=",".join(str(i) for i in range(len(tensors))))
        tensors = [with_shape(t, s) for t, s in zip(tensors, padded)]
    return [tensors]


def variable_shape(inputs, op_mode="elewise"):
    """The concrete shape of every input dict, as lists of ints (reduce mode, as CANN's: the axes input's own
    shape too, ``[number of axes]``)."""
    shapes = []
    for index, item in enumerate(inputs):
        if item is None:
            continue
        if op_mode == OpPatternMode.REDUCE:
            shapes.append(reduce_variable_shape(item, index))
            continue
        if not isinstance(item, dict) or "shape" not in item:
            raise TbeTypeError(f"variable_shape: input {index} must be a tensor dict with a 'shape', got {item!r}")
        shapes.append(pinned_shape(item["shape"], item.get("range"), f"variable_shape input {index}"))
    return shapes


__all__ = ["OpImplMode", "OpPatternMode", "SUPPORTED_MODES", "classify", "variable_shape"]
