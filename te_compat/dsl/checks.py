"""Argument checks shared by the DSL functions (TBE's dtype_check_decorator, shape and scalar checks).

Every failure raises :class:`TbeArgumentError` (a RuntimeError and ValueError, as TBE's checks raise RuntimeError)
or :class:`TbeTypeError` (an argument of the wrong kind), with a message naming the DSL function and the cause.
"""
from __future__ import annotations

import numbers

import numpy as np
import tvm
from tvm import te

from npusim.errors import TbeArgumentError, TbeTypeError
from te_compat.const_fold import const_value
from te_compat.objects import dtype_of  # noqa: F401  (the DSL modules import it from here)

KNOWN_DTYPES = ("float16", "float32", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64",
                "bool")
FLOAT_DTYPES = ("float16", "float32")


def is_tensor(value) -> bool:
    """Whether ``value`` is a TVM TE tensor."""
    return isinstance(value, te.Tensor)


def require_tensor(func: str, value, what: str = "input") -> te.Tensor:
    """``value`` itself when it is a tensor; TbeTypeError otherwise."""
    if not is_tensor(value):
        raise TbeTypeError(f"{func}: the {what} must be a tvm tensor, got {type(value).__name__} {value!r}")
    return value


def static_shape(func: str, tensor) -> tuple:
    """The tensor's shape as Python ints; a symbolic dim raises (npusim compiles per concrete shape)."""
    dims = []
    for pos, dim in enumerate(tensor.shape):
        if isinstance(dim, (int, np.integer)):
            dims.append(int(dim))
        elif isinstance(dim, tvm.tirx.IntImm):
            dims.append(int(dim.value))
        else:
            raise TbeArgumentError(f"{func}: dimension {pos} of tensor {tensor.name!r} is the symbolic {dim}; npusim "
                                   "compiles per concrete shape, so every dimension must be a concrete int")
        if dims[-1] <= 0:
            raise TbeArgumentError(f"{func}: dimension {pos} of tensor {tensor.name!r} is {dims[-1]}; "
                                   "dimensions must be positive")
    return tuple(dims)


def concrete_shape(func: str, shape, what: str = "shape") -> tuple:
    """A shape argument (list/tuple of ints or IntImm) as Python ints; -1 or symbolic dims raise."""
    if isinstance(shape, (int, np.integer, tvm.tirx.IntImm)):
        shape = [shape]
    if not isinstance(shape, (list, tuple)) and type(shape).__name__ != "Array":
        raise TbeTypeError(f"{func}: the {what} must be a list or tuple of ints, got {type(shape).__name__}")
    dims = []
    for pos, dim in enumerate(shape):
        value = concrete_int(func, dim, f"{what}[{pos}]")
        if value == -1:
            raise TbeArgumentError(f"{func}: {what}[{pos}] is -1; npusim compiles per concrete shape, so give the "
                                   "real dimension")
        if value <= 0:
            raise TbeArgumentError(f"{func}: {what}[{pos}] is {value}; dimensions must be positive")
        dims.append(value)
    if not dims:
        raise TbeArgumentError(f"{func}: the {what} is empty")
    return tuple(dims)


def concrete_int(func: str, value, what: str) -> int:
    """A Python int from an int / numpy int / IntImm; anything else raises."""
    if isinstance(value, bool):
        raise TbeTypeError(f"{func}: {what} must be an int, got bool {value}")
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, tvm.tirx.IntImm):
        return int(value.value)
    if isinstance(value, tvm.ir.expr.Expr):
        raise TbeArgumentError(f"{func}: {what} is the symbolic {value}; npusim compiles per concrete shape")
    raise TbeTypeError(f"{func}: {what} must be an int, got {type(value).__name__} {value!r}")


def require_same_shape(func: str, tensors, names=None) -> tuple:
    """The common shape of ``tensors``; differing shapes raise (TBE has no implicit broadcast)."""
    shapes = [static_shape(func, t) for t in tensors]
    names = names or [f"input {i}" for i in range(len(tensors))]
    for name, shape in zip(names[1:], shapes[1:]):
        if shape != shapes[0]:
            raise TbeArgumentError(f"{func}: the shape of the {name} {list(shape)} must equal the shape of the "
                                   f"{names[0]} {list(shapes[0])} (no implicit broadcast; call broadcast first)")
    return shapes[0]


def normalize_dtype(func: str, dtype) -> str:
    """A dtype argument as its lowercase name; unknown names raise."""
    name = str(dtype).lower()
    if name not in KNOWN_DTYPES:
        raise TbeArgumentError(f"{func}: unknown dtype {dtype!r}; expected one of {', '.join(KNOWN_DTYPES)}")
    return name


def scalar_value(func: str, value, what: str = "scalar"):
    """The Python number a scalar argument holds (Python/numpy number or tvm.const); a tensor raises."""
    if is_tensor(value):
        raise TbeTypeError(f"{func}: the {what} must be a scalar (Python number or tvm.const), "
                           f"got the tensor {value.name!r}")
    if isinstance(value, (bool, np.bool_)):
        return int(value)
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, numbers.Real):
        return value
    if isinstance(value, (tvm.tirx.IntImm, tvm.tirx.FloatImm)):
        return value.value
    if isinstance(value, tvm.ir.expr.Expr) and const_value(value) is not None:
        return const_value(value)  # constant arithmetic (float16 is left unfolded by TVM 0.27; CANN's TVM folds it)
    if isinstance(value, tvm.ir.expr.Expr):
        raise TbeArgumentError(f"{func}: the {what} {value} is not a constant; npusim needs a constant scalar")
    raise TbeTypeError(f"{func}: the {what} must be a Python number or tvm.const, got {type(value).__name__}")


def value_in_dtype(value, dtype: str):
    """``value`` converted as a scalar of ``dtype`` holds it (float16 rounding, int truncation toward zero)."""
    if dtype == "bool":
        return bool(value)
    if dtype in ("float16", "float32", "float64"):
        return float(np.dtype(dtype).type(value))
    return int(value)


def const(value, dtype: str):
    """A TVM constant of ``dtype`` holding ``value`` as that dtype does."""
    return tvm.tirx.const(value_in_dtype(value, dtype), dtype)


def normalize_axes(func: str, axis, rank: int) -> tuple:
    """Reduce axes (int, list/tuple, or None = all) as sorted unique non-negative ints below ``rank``."""
    if axis is None:
        return tuple(range(rank))
    items = list(axis) if isinstance(axis, (list, tuple)) or type(axis).__name__ == "Array" else [axis]
    if not items:
        raise TbeArgumentError(f"{func}: the axis list is empty")
    result = set()
    for item in items:
        value = concrete_int(func, item, "axis")
        if not -rank <= value < rank:
            raise TbeArgumentError(f"{func}: axis {value} is out of range [{-rank}, {rank - 1}] for a "
                                   f"{rank}-d tensor")
        result.add(value % rank)
    return tuple(sorted(result))


def normalize_axis(func: str, axis, rank: int) -> int:
    """One axis argument as a non-negative int below ``rank``."""
    value = concrete_int(func, axis, "axis")
    if not -rank <= value < rank:
        raise TbeArgumentError(f"{func}: axis {value} is out of range [{-rank}, {rank - 1}] for a {rank}-d tensor")
    return value % rank


def int_list(func: str, values, what: str) -> list:
    """A list of Python ints from an int, a list/tuple or a 1-d numpy array of ints."""
    if isinstance(values, np.ndarray):
        values = values.reshape(-1).tolist()
    if isinstance(values, (int, np.integer, tvm.tirx.IntImm)) and not isinstance(values, bool):
        return [concrete_int(func, values, what)]
    if is_tensor(values):
        raise TbeTypeError(f"{func}: {what} must be a Python list of ints (known when the kernel is built), "
                           f"got the tensor {values.name!r}")
    if not isinstance(values, (list, tuple)):
        raise TbeTypeError(f"{func}: {what} must be a list of ints, got {type(values).__name__}")
    return [concrete_int(func, v, f"{what}[{i}]") for i, v in enumerate(values)]
