"""``impl.util.util_common``: the shape-state helpers dynamic op files call before ``classify``."""
from __future__ import annotations


def _dicts(inputs) -> list:
    return list(inputs) if isinstance(inputs, (list, tuple)) else [inputs]


def is_unknown_rank_input(inputs) -> bool:
    """Whether any input dict has an unknown rank (shape [-2])."""
    return any(isinstance(d, dict) and list(d.get("shape", ())) == [-2] for d in _dicts(inputs))


def is_unknown(inputs) -> bool:
    """Whether any input dict has an unknown dimension (-1) or rank (-2)."""
    return any(isinstance(d, dict) and any(dim in (-1, -2) for dim in d.get("shape", ())) for d in _dicts(inputs))


def gen_range(shape) -> list:
    """The range of a concrete shape: (dim, dim) per dimension."""
    return [(dim, dim) for dim in shape]


__all__ = ["gen_range", "is_unknown", "is_unknown_rank_input"]
