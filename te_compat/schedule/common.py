"""Small shared pieces of the scheduler: the "cannot map this graph" signal, dtype facts, integer helpers.

Hardware numbers come from the chip the schedule is made for (block and repeat bytes, lanes, max repeat:
:class:`npusim.sim.chip.Chip`) or from :mod:`npusim.sim.geometry` (instruction-field widths); none are stated here.
"""
from __future__ import annotations

from math import gcd

_ITEMSIZE = {"bool": 1, "int8": 1, "uint8": 1, "int16": 2, "uint16": 2, "float16": 2, "int32": 4,
             "uint32": 4, "float32": 4, "int64": 8, "uint64": 8, "float64": 8}
_SAME_SIZE_INT = {1: "uint8", 2: "int16", 4: "int32", 8: "int64"}


class UnsupportedPattern(Exception):
    """The graph (or one node of it) has no vector mapping here; ``reason`` says why (the fallback uses it)."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


def plus(a, b):
    """``a + b`` for index expressions: an int 0 on either side leaves the other operand as it is (no ``x + 0``
    expression nodes in the lowered kernel)."""
    if isinstance(b, int) and b == 0:
        return a
    if isinstance(a, int) and a == 0:
        return b
    return a + b


def itemsize(dtype: str) -> int:
    """Bytes per element of a DSL dtype (bool tensors are one byte in GM, as MindSpore hands them)."""
    try:
        return _ITEMSIZE[dtype]
    except KeyError:
        raise UnsupportedPattern(f"dtype {dtype!r} is not handled by the vector scheduler") from None


def per_block(chip, dtype: str) -> int:
    """Elements of ``dtype`` per block of ``chip``."""
    return chip.block_elems(itemsize(dtype))


def rep_stride(chip, dtype: str) -> int:
    """Repeat stride (in blocks of ``chip``) of back-to-back full repeats over ``dtype`` operands: one repeat's
    lanes of them."""
    return lanes_of(chip, dtype) * itemsize(dtype) // chip.block_bytes


def bits_dtype(dtype: str) -> str:
    """The integer dtype of the same width (exact bit copies through scalar registers / bitwise ops)."""
    return _SAME_SIZE_INT[itemsize(dtype)]


def lanes_of(chip, *dtypes: str) -> int:
    """Lanes of one vector repeat on ``chip`` over operands of these dtypes (the vector width over the widest, at
    most the mask register's width)."""
    return chip.lanes(max(itemsize(d) for d in dtypes))


def ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def round_up(a: int, b: int) -> int:
    return ceil_div(a, b) * b


def lcm(a: int, b: int) -> int:
    return a * b // gcd(a, b)


def largest_fitting(fits, limit: int, align: int) -> int:
    """The largest v in [1, limit] with fits(v) (fits is monotone), rounded down to ``align`` when possible."""
    low, high = 1, limit
    while low < high:
        mid = (low + high + 1) // 2
        if fits(mid):
            low = mid
        else:
            high = mid - 1
    if low >= align and low < limit:
        low -= low % align
    return low


def gm_dtype(dtype: str) -> str:
    """The dtype data moves use for a tensor (bool travels as uint8 bytes)."""
    return "uint8" if dtype == "bool" else dtype
