"""How one tile of a tensor sits in UB and in GM.

A tile covers ``ta`` x ``tb`` x ``tc`` of the canonical (A, B, C) space.  A tensor's UB copy keeps only the
axes it has: rows of its C extent padded to ``pitch`` elements (TBE's storage_align, so every row starts on a
block boundary), or, when it lacks C, its (A, B) elements packed.  Tensors of one mask share one layout,
whatever their dtype (the pitch is a multiple of the widest block count), so element-wise ops line up.
"""
from __future__ import annotations

from dataclasses import dataclass

from te_compat.schedule.common import ceil_div, itemsize, round_up


@dataclass(frozen=True)
class Tile:
    """Static extents of one tile along A, B, C."""

    ta: int
    tb: int
    tc: int

    def extent(self, axis: int) -> int:
        return (self.ta, self.tb, self.tc)[axis]


@dataclass(frozen=True)
class Layout:
    """A tensor's tile in UB: ``ea`` x ``eb`` rows of ``ec`` elements at ``pitch`` (has_c), else ea x eb packed."""

    ea: int
    eb: int
    ec: int
    pitch: int
    has_c: bool

    @property
    def rows(self) -> int:
        return self.ea * self.eb

    @property
    def flat(self) -> int:
        """Elements an element-wise op covers (rows x pitch, padding included)."""
        return self.rows * self.pitch if self.has_c else self.rows

    @property
    def count(self) -> int:
        """Real elements of the tile."""
        return self.rows * (self.ec if self.has_c else 1)

    @property
    def contiguous(self) -> bool:
        """Whether the tile is one run of elements in UB (no row padding between its elements)."""
        return not self.has_c or self.rows == 1 or self.pitch == self.ec

    def offset(self, ia, ib=0, ic=0):
        """UB element offset of tile element (ia, ib, ic) (ints or expressions)."""
        if self.has_c:
            return (ia * self.eb + ib) * self.pitch + ic
        return ia * self.eb + ib


def layout_of(mask: tuple, tile: Tile, unit: int) -> Layout:
    """The UB layout of a tensor with ``mask`` in ``tile``; rows padded to multiples of ``unit`` elements."""
    ea = tile.ta if mask[0] else 1
    eb = tile.tb if mask[1] else 1
    if mask[2]:
        return Layout(ea, eb, tile.tc, round_up(tile.tc, unit), True)
    return Layout(ea, eb, 1, 1, False)


def layouts_of(an, tile: Tile, unit: int) -> dict:
    """node index -> the layout of that node of analysed graph ``an`` in ``tile``."""
    return {n.index: layout_of(an.mask(n.index), tile, unit) for n in an.graph.nodes}


def buffer_bytes(chip, layout: Layout, dtype: str, bits: bool = False) -> int:
    """UB bytes of a tile buffer, rounded to whole repeats of ``chip`` (instructions may run over the padding);
    ``bits``: one bit per element."""
    if bits:
        return round_up(ceil_div(layout.flat, 8), chip.repeat_bytes)
    return round_up(max(layout.flat, 1) * itemsize(dtype), chip.repeat_bytes)


@dataclass(frozen=True)
class GmGeometry:
    """Where a tensor's elements are in GM: element strides of the A and B axes (C is contiguous)."""

    stride_a: int
    stride_b: int
    total: int


def gm_geometry(mask: tuple, extents: tuple) -> GmGeometry:
    a, b, c = extents
    c_len = c if mask[2] else 1
    b_len = b if mask[1] else 1
    a_len = a if mask[0] else 1
    return GmGeometry(b_len * c_len if mask[0] else 0, c_len if mask[1] else 0, a_len * b_len * c_len)


def gm_offset(mask: tuple, geometry: GmGeometry, a0, b0, c0):
    """GM element offset of tile origin (a0, b0, c0) for a tensor with ``mask`` (ints or expressions)."""
    offset = 0
    for present, start, stride in ((mask[0], a0, geometry.stride_a), (mask[1], b0, geometry.stride_b),
                                   (mask[2], c0, 1)):
        if present and not (isinstance(start, int) and start == 0):
            term = start * stride if stride != 1 else start
            offset = term if isinstance(offset, int) and offset == 0 else offset + term
    return offset
