"""GM <-> UB moves of one tensor tile, tails included.

``data_move`` copies whole blocks (the chip's, 32 bytes).  Reads may run past a region into data nobody changes,
but not past the tensor's allocation: a read whose last block would cross it takes its last partial block from a
block read backwards from the tensor end into a scratch area, then copies the few elements with the scalar unit.
Writes
never touch bytes outside their region: a region that is not a whole number of blocks writes its whole blocks,
then its last block *backwards* (re-writing elements of the region already written, with the same values)
from a scratch block the scalar unit filled; a region under one block is written element by element.  Rows padded
in UB (storage-aligned) move one row per instruction; consecutive rows may overrun into the next row, which the
next move rewrites, and only the last row of a tile takes the exact path.
"""
from __future__ import annotations

from dataclasses import dataclass

from npusim.sim.geometry import DATA_MOVE_GAP_MAX, DATA_MOVE_NBURST_MAX
from te_compat.schedule.common import bits_dtype, ceil_div, itemsize, per_block
from te_compat.schedule.layout import GmGeometry, Layout, gm_offset
from te_compat.schedule.vec import Loc

EVENT_TAIL = 3


@dataclass(frozen=True)
class GmTensor:
    """A GM parameter as the moves see it: ``handle`` viewed in ``dtype`` (bool as uint8), its GM geometry, and
    ``allowed``: the elements a read may reach (the tensor rounded up to whole blocks)."""

    handle: object
    dtype: str
    geom: GmGeometry
    mask: tuple
    allowed: int


def gm_tensor(chip, handle, dtype: str, geom: GmGeometry, mask: tuple) -> GmTensor:
    """The GmTensor of ``handle`` on ``chip`` (whose block bounds what a read may reach)."""
    epb = per_block(chip, dtype)
    return GmTensor(handle, dtype, geom, mask, ceil_div(geom.total, epb) * epb)


def _move(em, dst_ref, src_ref, blocks: int) -> None:
    em.kb.data_move(dst_ref, src_ref, 0, 1, blocks, 0, 0)


def _scalar_copy(em, dst_ref, src_ref, dtype: str) -> None:
    reg = em.reg(bits_dtype(dtype), "mv")
    reg.set_as(src_ref)
    dst_ref.set_as(reg)


def _contiguous(t: GmTensor, lay: Layout) -> bool:
    if not lay.has_c:
        return True
    return lay.contiguous and _consecutive_rows(t, lay)


def _consecutive_rows(t: GmTensor, lay: Layout) -> bool:
    rows_ok = lay.eb == 1 or t.geom.stride_b == lay.ec
    return rows_ok and (lay.ea == 1 or t.geom.stride_a == lay.eb * lay.ec)


def _burstable(block: int, t: GmTensor, lay: Layout) -> bool:
    isz = itemsize(t.dtype)
    if lay.pitch != lay.ec or (lay.ec * isz) % block or lay.ea > 1 and lay.eb > 1:
        return False
    stride = t.geom.stride_b if lay.eb > 1 else t.geom.stride_a
    gap_bytes = (stride - lay.ec) * isz
    return stride >= lay.ec and gap_bytes % block == 0 and gap_bytes // block <= DATA_MOVE_GAP_MAX


# -- loads ------------------------------------------------------------------------------------------------------
def load_tile(em, t: GmTensor, buf, lay: Layout, origin: tuple, slot: int) -> None:
    """GM tile at ``origin`` (a0, b0, c0) -> UB ``buf`` laid out as ``lay``."""
    base = gm_offset(t.mask, t.geom, *origin)
    dst = Loc(buf, 0, t.dtype)
    if _contiguous(t, lay):
        load_run(em, t, base, dst, lay.count, slot)
    elif _burstable(em.chip.block_bytes, t, lay):
        _burst(em, t, base, dst, lay, load=True)
    else:
        _each_row(em, t, base, lay, lambda g, u: load_run(em, t, g, dst.shift(u), lay.ec, slot))


def load_run(em, t: GmTensor, start, dst: Loc, n: int, slot: int) -> None:
    """n contiguous GM elements from ``start`` to UB ``dst``."""
    isz, epb, block = itemsize(t.dtype), per_block(em.chip, t.dtype), em.chip.block_bytes
    blocks = ceil_div(n * isz, block)
    if (n * isz) % block == 0:
        _move(em, dst.ref(), t.handle[start], blocks)
        return
    over = start + blocks * epb > t.allowed
    if isinstance(over, bool):
        (_safe_load if over else _plain_load)(em, t, start, dst, n, slot)
        return
    with em.kb.if_scope(over):
        _safe_load(em, t, start, dst, n, slot)
    with em.kb.else_scope():
        _plain_load(em, t, start, dst, n, slot)


def _plain_load(em, t, start, dst: Loc, n: int, slot: int) -> None:
    _move(em, dst.ref(), t.handle[start], ceil_div(n * itemsize(t.dtype), em.chip.block_bytes))


def _safe_load(em, t, start, dst: Loc, n: int, slot: int) -> None:
    epb = per_block(em.chip, t.dtype)
    main = n // epb
    if main:
        _move(em, dst.ref(), t.handle[start], main)
    block_start = max(t.geom.total - epb, 0)
    arena, offset = em.scratch(slot)
    base = offset // itemsize(t.dtype)
    _move(em, em.view(arena, t.dtype)[base], t.handle[block_start], 1)
    em.sync("MTE2", "S", EVENT_TAIL)
    first = start + main * epb - block_start
    scratch_bits = _view_bits(em, arena, t.dtype)
    for j in range(n - main * epb):
        _scalar_copy(em, _as_bits(dst, main * epb + j), scratch_bits[first + base + j], t.dtype)


def _as_bits(loc: Loc, k):
    """Element k of loc seen as the same-width integer (exact bit copies through a register)."""
    return loc.buf.at(_plus(loc.k, k), bits_dtype(loc.dt))


def _view_bits(em, arena: str, dtype: str):
    return em.view(arena, bits_dtype(dtype))


def _plus(a, b):
    if isinstance(b, int) and b == 0:
        return a
    return a + b


def _burst(em, t: GmTensor, base, loc: Loc, lay: Layout, load: bool) -> None:
    isz = itemsize(t.dtype)
    count = lay.eb if lay.eb > 1 else lay.ea
    stride = t.geom.stride_b if lay.eb > 1 else t.geom.stride_a
    burst = lay.ec * isz // em.chip.block_bytes
    gap = (stride - lay.ec) * isz // em.chip.block_bytes
    for first in range(0, count, DATA_MOVE_NBURST_MAX):
        nburst = min(DATA_MOVE_NBURST_MAX, count - first)
        gm_ref = t.handle[_plus(base, first * stride)]
        ub_ref = loc.ref(first * lay.pitch)
        if load:
            em.kb.data_move(ub_ref, gm_ref, 0, nburst, burst, gap, 0)
        else:
            em.kb.data_move(gm_ref, ub_ref, 0, nburst, burst, 0, gap)


def _each_row(em, t: GmTensor, base, lay: Layout, body) -> None:
    """body(gm_start, ub_offset) for every row of the tile, in kernel loops."""
    sa, sb = t.geom.stride_a, t.geom.stride_b
    if lay.ea > 1 and lay.eb > 1:
        with em.kb.for_range(0, lay.ea) as ia:
            with em.kb.for_range(0, lay.eb) as ib:
                body(base + ia * sa + ib * sb, (ia * lay.eb + ib) * lay.pitch)
    elif lay.rows > 1:
        stride = sb if lay.eb > 1 else sa
        with em.kb.for_range(0, lay.rows) as r:
            body(base + r * stride, r * lay.pitch)
    else:
        body(base, 0)


# -- stores -----------------------------------------------------------------------------------------------------
def store_tile(em, t: GmTensor, buf, lay: Layout, origin: tuple, slot: int) -> None:
    """UB ``buf`` (layout ``lay``) -> the GM tile at ``origin``, touching no byte outside it."""
    base = gm_offset(t.mask, t.geom, *origin)
    src = Loc(buf, 0, t.dtype)
    if _contiguous(t, lay):
        store_run(em, t, base, src, lay.count, slot)
    elif _burstable(em.chip.block_bytes, t, lay):
        _burst(em, t, base, src, lay, load=False)
    elif _consecutive_rows(t, lay):
        _store_padded_rows(em, t, base, src, lay, slot)
    else:
        _each_row(em, t, base, lay, lambda g, u: store_run(em, t, g, src.shift(u), lay.ec, slot))


def store_run(em, t: GmTensor, start, src: Loc, n: int, slot: int) -> None:
    """n contiguous UB elements at ``src`` -> GM from ``start``, exactly."""
    epb = per_block(em.chip, t.dtype)
    main = n // epb
    if main:
        _move(em, t.handle[start], src.ref(), main)
    if n % epb:
        _store_tail(em, t, start, n, lambda e: _ub_ref(src, e), slot)


def _ub_ref(src: Loc, k):
    return _as_bits(src, k)


def _store_padded_rows(em, t: GmTensor, base, src: Loc, lay: Layout, slot: int) -> None:
    """Rows whose whole blocks stay inside the region move plainly (overrunning into the next row, which is
    rewritten next); the rest is written exactly: whole blocks of the last row, then the region's last block."""
    isz, epb, ec = itemsize(t.dtype), per_block(em.chip, t.dtype), lay.ec
    blocks = ceil_div(ec * isz, em.chip.block_bytes)
    n = lay.rows * ec
    plain = min(lay.rows - 1, (n - blocks * epb) // ec + 1) if n >= blocks * epb else 0
    if plain > 1:
        with em.kb.for_range(0, plain) as r:
            _move(em, t.handle[base + r * ec], src.ref(r * lay.pitch), blocks)
    elif plain == 1:
        _move(em, t.handle[base], src.ref(), blocks)
    last = lay.rows - 1
    if ec // epb:
        _move(em, t.handle[_plus(base, last * ec)], src.ref(last * lay.pitch), ec // epb)
    if ec % epb:
        _store_tail(em, t, base, lay.rows * ec, lambda e: _ub_ref(src, (e // ec) * lay.pitch + e % ec), slot)


def _store_tail(em, t: GmTensor, start, n: int, ub_ref, slot: int) -> None:
    """Write elements n - epb .. n of a region (GM from ``start``) whose UB element e is ``ub_ref(e)``."""
    epb = per_block(em.chip, t.dtype)
    em.v_to_s()
    if n < epb:
        gm_bits = t.handle.reinterpret_cast_to(bits_dtype(t.dtype))
        for e in range(n):
            _scalar_copy(em, gm_bits[_plus(start, e)], ub_ref(e), t.dtype)
        return
    arena, offset = em.scratch(slot)
    scratch = _view_bits(em, arena, t.dtype)
    base = offset // itemsize(t.dtype)
    for j in range(epb):
        _scalar_copy(em, scratch[base + j], ub_ref(n - epb + j), t.dtype)
    _move(em, t.handle[_plus(start, n - epb)], em.view(arena, t.dtype)[base], 1)
