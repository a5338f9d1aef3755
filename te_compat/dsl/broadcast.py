"""``broadcast(var, shape, output_dtype=None)``: a scalar filled into a tensor, or a tensor's 1-dims expanded.

* scalar: tag ``broadcast``, attrs ``value``; a Python float becomes float16, a Python int int32, a tvm.const keeps
  its dtype, unless ``output_dtype`` is given.
* tensor: tag ``broadcast_for_tensor``; the tensor's shape is right-aligned to ``shape`` and each of its dims must
  equal the target dim or be 1.  A tensor that already has ``shape`` is returned unchanged (as TBE does).
"""
from __future__ import annotations

import numbers

import numpy as np
import tvm

from npusim.errors import TbeArgumentError

from te_compat.dsl.checks import concrete_shape, const, dtype_of, is_tensor, normalize_dtype, scalar_value, \
    static_shape, value_in_dtype
from te_compat.dsl.nodes import make_node


def _scalar_dtype(var, output_dtype) -> str:
    if output_dtype is not None:
        return normalize_dtype("broadcast", output_dtype)
    if isinstance(var, (tvm.tirx.IntImm, tvm.tirx.FloatImm)):
        return dtype_of(var)
    if isinstance(var, (bool, np.bool_, numbers.Integral)):
        return "int32"
    if isinstance(var, np.floating):
        return str(var.dtype) if str(var.dtype) in ("float16", "float32") else "float16"
    return "float16"


def broadcast_scalar(value, shape, dtype: str):
    """A ``broadcast`` node of ``shape`` whose every element is ``value`` as ``dtype``."""
    held = value_in_dtype(value, dtype)
    filled = const(held, dtype)
    return make_node(shape, lambda *i: filled, "broadcast", {"value": held}, prefix="broadcast")


def broadcast_tensor(tensor, shape, func: str = "broadcast"):
    """``tensor`` expanded to ``shape`` (right-aligned; each dim equal or 1); the tensor itself when shapes agree."""
    source = static_shape(func, tensor)
    target = tuple(shape)
    if len(source) > len(target):
        raise TbeArgumentError(f"{func}: cannot broadcast shape {list(source)} to the lower-rank shape "
                               f"{list(target)}")
    offset = len(target) - len(source)
    for pos, dim in enumerate(source):
        if dim not in (1, target[offset + pos]):
            raise TbeArgumentError(f"{func}: for tensor broadcasting every source dim must equal the target dim or "
                                   f"be 1; source shape {list(source)}, target shape {list(target)}")
    if source == target:
        return tensor

    def body(*index):
        picked = [index[offset + pos] if dim != 1 else 0 for pos, dim in enumerate(source)]
        return tensor(*picked)
    return make_node(target, body, "broadcast_for_tensor", prefix="broadcast_tensor")


def broadcast(var, shape, output_dtype=None):
    """Broadcast a scalar (Python number / tvm.const) or a tensor to ``shape``."""
    target = concrete_shape("broadcast", shape)
    if is_tensor(var):
        return broadcast_tensor(var, target)
    value = scalar_value("broadcast", var, "var")
    return broadcast_scalar(value, target, _scalar_dtype(var, output_dtype))
