"""Attribute values of a hybrid call (trailing scalar parameters): which are compile-time, which run-time.

Float values are passed to the kernel at run time (a float64 parameter), so a changing float attribute does not
recompile.  Every other value (int, bool, str, lists) is baked into the kernel: it can size tensors and decide
``if`` statements, and it is part of the cache key.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np


def is_float_attr(value) -> bool:
    """Whether ``value`` is passed at run time."""
    return isinstance(value, (float, np.floating))


def freeze(value):
    """A hashable compile-time form of an attribute value (lists → tuples, numpy scalars → Python)."""
    if isinstance(value, np.ndarray):
        value = value.tolist()
    if isinstance(value, (list, tuple)):
        return tuple(freeze(v) for v in value)
    if isinstance(value, np.generic):
        return value.item()
    return value


def attrs_key(values: Sequence) -> tuple:
    """The part of a cache key coming from attribute values."""
    return tuple(("float",) if is_float_attr(v) else (type(v).__name__, freeze(v)) for v in values)
