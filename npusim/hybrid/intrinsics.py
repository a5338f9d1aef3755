"""The Hybrid DSL intrinsics: one row per name, shared by the numpy emulator, the static checks and TIR lowering.

Each row gives the intrinsic's kind (how the checker and the lowering treat it), how many positional arguments
it takes, and its numpy meaning (what a direct Python call of a ``@kernel`` function runs).  TIR lowering of the
math rows lives in :mod:`npusim.hybrid.lower_intrin`, keyed by the same names.
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Callable, Optional

import numpy as np

from npusim.hybrid.dtypes import normalize_dtype

# kinds
BUFFER = "buffer"        # output_tensor / allocate
LOOP = "loop"            # range / serial / vectorize / parallel / reduce / grid
SCOPE = "scope"          # `with attr(...)` / `with block_realize(...)`
UNARY = "unary"          # one-argument math
BINARY = "binary"        # two-argument math
CAST = "cast"            # dtype-named conversions
BUILTIN = "builtin"      # max / min / len (Python builtins kept as they are)
KERNEL = "kernel"        # decorator names MindSpore tolerates inside a kernel body


@dataclass(frozen=True)
class Intrinsic:
    """One DSL name.  ``arity`` is (min, max) positional arguments; max None = any number."""

    name: str
    kind: str
    numpy_impl: Optional[Callable]
    arity: tuple = (1, 1)


def _zeros(shape, dtype="float32", scope="global"):
    """output_tensor / allocate when run in Python: a zero-filled array (``scope`` is ignored)."""
    del scope
    return np.zeros(_shape_tuple(shape), dtype=normalize_dtype(dtype))


def _shape_tuple(shape):
    if isinstance(shape, (int, np.integer)):
        return (int(shape),)
    return tuple(int(s) for s in shape)


def _loop(*args):
    """serial/vectorize/parallel/reduce: iterate like range (the schedule hint has no meaning on CPU)."""
    return range(*(int(a) for a in args))


def _grid(*extents):
    """grid(extents): the index tuples of a loop nest over ``extents`` (one tuple arg or several ints)."""
    if len(extents) == 1 and not isinstance(extents[0], (int, np.integer)):
        extents = tuple(extents[0])
    return itertools.product(*(range(int(e)) for e in extents))


class _NoOpScope:
    """`with attr(k, v)` / `with block_realize(t)`: schedule annotations, no effect when run in Python."""

    def __init__(self, *args, **kwargs):
        del args, kwargs

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        return False


def _keep_float_dtype(fn):
    """Wrap a float64-only function so numpy float inputs keep their dtype (ints/Python numbers → float64)."""
    def apply(x):
        arr = np.asarray(x)
        out_dtype = arr.dtype if arr.dtype.kind == "f" else np.dtype("float64")
        result = np.vectorize(fn, otypes=[np.float64])(arr).astype(out_dtype)
        return result if arr.ndim else result[()]
    return apply


def _rsqrt(x):
    return np.reciprocal(np.sqrt(x))


def _ceil_div(a, b):
    return (a + b - 1) // b


def _sign(x):
    return np.sign(x)


_TABLE = [
    Intrinsic("output_tensor", BUFFER, _zeros, (2, 2)),
    Intrinsic("allocate", BUFFER, _zeros, (2, 3)),
    Intrinsic("range", LOOP, range, (1, 3)),
    Intrinsic("serial", LOOP, _loop, (1, 3)),
    Intrinsic("vectorize", LOOP, _loop, (1, 3)),
    Intrinsic("parallel", LOOP, _loop, (1, 3)),
    Intrinsic("reduce", LOOP, _loop, (1, 3)),
    Intrinsic("grid", LOOP, _grid, (1, None)),
    Intrinsic("attr", SCOPE, _NoOpScope, (2, 2)),
    Intrinsic("block_realize", SCOPE, _NoOpScope, (1, 1)),
    Intrinsic("sqrt", UNARY, np.sqrt),
    Intrinsic("sign", UNARY, _sign),
    Intrinsic("log", UNARY, np.log),
    Intrinsic("tanh", UNARY, np.tanh),
    Intrinsic("exp", UNARY, np.exp),
    Intrinsic("abs", UNARY, np.abs),
    Intrinsic("rsqrt", UNARY, _rsqrt),
    # numpy has no erf; math.erf per element, keeping float16/float32 inputs in their dtype
    Intrinsic("erf", UNARY, _keep_float_dtype(math.erf)),
    Intrinsic("isnan", UNARY, np.isnan),
    Intrinsic("isinf", UNARY, np.isinf),
    Intrinsic("isfinite", UNARY, np.isfinite),
    Intrinsic("sin", UNARY, np.sin),
    Intrinsic("cos", UNARY, np.cos),
    Intrinsic("atan", UNARY, np.arctan),
    Intrinsic("expm1", UNARY, np.expm1),
    Intrinsic("floor", UNARY, np.floor),
    Intrinsic("ceil", UNARY, np.ceil),
    Intrinsic("trunc", UNARY, np.trunc),
    # numpy.round rounds half to even, as TVM's round does
    Intrinsic("round", UNARY, np.round),
    Intrinsic("power", BINARY, np.power, (2, 2)),
    Intrinsic("atan2", BINARY, np.arctan2, (2, 2)),
    Intrinsic("ceil_div", BINARY, _ceil_div, (2, 2)),
    Intrinsic("int8", CAST, np.int8),
    Intrinsic("int16", CAST, np.int16),
    Intrinsic("int32", CAST, np.int32),
    Intrinsic("int64", CAST, np.int64),
    Intrinsic("float16", CAST, np.float16),
    Intrinsic("float32", CAST, np.float32),
    Intrinsic("float64", CAST, np.float64),
    Intrinsic("max", BUILTIN, max, (1, None)),
    Intrinsic("min", BUILTIN, min, (1, None)),
    Intrinsic("len", BUILTIN, len, (1, 1)),
    Intrinsic("kernel", KERNEL, None, (0, None)),
    Intrinsic("ms_kernel", KERNEL, None, (0, None)),
]

#: name → row
INTRINSICS: dict = {row.name: row for row in _TABLE}

#: names a kernel body sees when it runs in Python (builtins max/min/len/range stay the builtins)
EMULATION_GLOBALS: dict = {row.name: row.numpy_impl for row in _TABLE
                           if row.numpy_impl is not None and row.kind != BUILTIN}


def intrinsic(name: str) -> Optional[Intrinsic]:
    """The row for ``name`` or None."""
    return INTRINSICS.get(name)
