"""``classify(ins, "reduce", extra_params)`` and the reduce-mode ``variable_shape``, for concrete shapes.

The inputs of a reduce op play three roles (CANN's ``rel_pos_to_reduce``): ``"before"`` tensors (the reduced
input), ``"after"`` tensors (shaped like the result) and the ``"axis"`` input.  ``extra_params`` is honoured as
CANN's reduce classifier does:

* ``keepdims`` (a bool) shapes the ``"after"`` inputs: the before-shape with the reduced dimensions set to 1
  (True) or removed (False); without it, it is inferred from the ``"after"`` inputs' rank;
* ``reduce_axes_type: "all"`` (``ReducePattern.REDUCE_MODE_REDUCE_ALL``) reduces every axis of the before-input,
  whatever the axis input holds (it usually holds ``{"shape": [-1], "value": []}``).
"""
from __future__ import annotations

from math import prod

from npusim.errors import TbeArgumentError, TbeTypeError
from te_compat.surface.checks import pinned_shape, pinned_tensor, with_shape
from te_compat.surface.context import get_context
from te_compat.surface.shapes import wrap_axes_to_positive

BEFORE, AFTER, AXIS = "before", "after", "axis"
REDUCE_ALL = "all"  # the reduce_axes_type value meaning "every axis"


def role(item) -> str:
    """The role of one input of a reduce op: "axis" (non-dicts too), "after" or "before"."""
    if not isinstance(item, dict):
        return AXIS
    position = item.get("rel_pos_to_reduce")
    return position if position in (AXIS, AFTER) else BEFORE


def _axes_values(item) -> list:
    if isinstance(item, (int, list, tuple, range)):
        return list(item) if not isinstance(item, int) else [item]
    for key in ("value", "const_value"):
        if item.get(key) is not None:
            value = item[key]
            return [int(v) for v in (value if hasattr(value, "__iter__") else [value])]
    raise TbeArgumentError("classify(reduce): the axes input carries no 'value' or 'const_value'; npusim compiles "
                           "per concrete shape and needs the reduce axes when the op is built (or pass "
                           "extra_params {'reduce_axes_type': 'all'} to reduce every axis).  ops.Custom passes an "
                           "input's 'const_value' when its reg info declares value_depend, as MindSpore does: "
                           "TBERegOp.input(1, 'axes', False, 'required', 'all', 'required') or "
                           "CustomRegOp.input(1, 'axes', value_depend='required')")


def _reduce_options(extra_params) -> tuple:
    """(keepdims or None, reduce every axis?) from ``extra_params``."""
    keepdims = extra_params.get("keepdims")
    if keepdims is not None and not isinstance(keepdims, bool):
        raise TbeTypeError(f"classify(reduce): extra_params['keepdims'] must be a bool, got "
                           f"{type(keepdims).__name__} {keepdims!r}")
    return keepdims, extra_params.get("reduce_axes_type") == REDUCE_ALL


def _after_shape(before_shape: list, axes: list, keepdims: bool) -> list:
    if keepdims:
        return [1 if axis in axes else dim for axis, dim in enumerate(before_shape)]
    return [dim for axis, dim in enumerate(before_shape) if axis not in axes] or [1]


def _after_tensor(item: dict, index: int, before_shape: list, axes: list, keepdims) -> dict:
    given = item.get("shape")
    if keepdims is None:  # CANN's older classifier: an after-input of the before-input's rank keeps the dims
        keepdims = given is not None and len(given) == len(before_shape)
    shape = _after_shape(before_shape, axes, keepdims)
    if given is not None and all(isinstance(d, int) and d >= 0 for d in given) and prod(given) != prod(shape):
        raise TbeArgumentError(f"classify(reduce): input {index} (rel_pos_to_reduce 'after') has shape "
                               f"{list(given)}, but reducing {before_shape} over axes {axes} with keepdims="
                               f"{keepdims} gives {shape}")
    return with_shape(item, shape)


def _axes_of(item, rank: int, reduce_all: bool) -> list:
    return list(range(rank)) if reduce_all else sorted(set(wrap_axes_to_positive(_axes_values(item), rank)))


def classify_reduce(ins: list, extra_params: dict) -> list:
    """The one input combination of a reduce op: before-inputs concrete, axes normalised, after-inputs shaped."""
    keepdims, reduce_all = _reduce_options(extra_params)
    roles = [role(item) for item in ins]
    if AXIS not in roles:
        roles[-1] = AXIS
    before = {i: pinned_tensor(item, i) for i, item in enumerate(ins) if roles[i] == BEFORE}
    if not before:
        raise TbeArgumentError("classify(reduce): no tensor input before the reduce besides the axes")
    before_shape = next(iter(before.values()))["shape"]
    rank = len(before_shape)
    axes = _axes_of(ins[roles.index(AXIS)], rank, reduce_all)
    combination = []
    for index, item in enumerate(ins):
        if roles[index] == BEFORE:
            combination.append(before[index])
        elif roles[index] == AFTER:
            combination.append(_after_tensor(item, index, before_shape, axes, keepdims))
        else:
            item_axes = _axes_of(item, rank, reduce_all)
            base = dict(item) if isinstance(item, dict) else {}
            combination.append(dict(base, shape=[len(item_axes)], value=item_axes, ori_axis=list(item_axes),
                                    rel_pos_to_reduce=AXIS))
    context = get_context()
    if context is not None:
        context.add_compile_info("_ori_axis", list(axes))
    return [combination]


def reduce_variable_shape(item, index: int) -> list:
    """The shape ``variable_shape(..., op_mode="reduce")`` reports for one input (the axis input's own shape)."""
    if role(item) == AXIS:
        if isinstance(item, dict):
            if item.get("shape") is not None and all(isinstance(d, int) and d >= 0 for d in item["shape"]):
                return list(item["shape"])
            return [len(_axes_values(item))]
        return [len(_axes_values(item))]
    if "shape" not in item:
        raise TbeTypeError(f"variable_shape: input {index} must be a tensor dict with a 'shape', got {item!r}")
    return pinned_shape(item["shape"], item.get("range"), f"variable_shape input {index}")


__all__ = ["AFTER", "AXIS", "BEFORE", "REDUCE_ALL", "classify_reduce", "reduce_variable_shape", "role"]
