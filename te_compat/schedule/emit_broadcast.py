"""broadcast_for_tensor: expanding a tile along the axes its input lacks.

Along C (a value per row): the scalar unit reads each row's value and vector_dup fills the row.  Along A or B
(rows repeated): rows are replicated with a 16-bit bitwise-or whose source repeat stride is 0 (one instruction
per 128-lane chunk for up to 255 rows), or whole blocks are copied with UB -> UB data_move.  A row broadcast
whose every reader is a binary vector op (:func:`row_source`) keeps only its first row: the readers take it
with source repeat stride 0 (each repeat re-reads the same row), so no row is copied more than once.
"""
from __future__ import annotations

from te_compat.schedule import vec
from te_compat.schedule.common import itemsize
from te_compat.schedule.env import ConstArg, NodeEnv, PlanEnv
from te_compat.schedule.vec import Loc


def temps(p: PlanEnv) -> list:
    return []


def emit(env: NodeEnv) -> None:
    p, em = env.plan, env.em
    lo = p.layout
    src = env.args[0]
    if isinstance(src, ConstArg):
        vec.dup(em, Loc(env.out), lo.flat, src.value)
        return
    src_index = p.info.operands[0].node
    if src_index in p.an.bits:
        raise env.fail("broadcast of a bit mask")
    mi, mo = p.an.mask(src_index), p.an.mask(p.index)
    li = p.layouts[src_index]
    if row_source(p.an, p.index):
        vec.copy_rows(em, Loc(env.out), Loc(src), lo.pitch, 0, 1, lo.pitch)
    elif mi == mo:
        vec.copy(em, Loc(env.out), Loc(src), lo.flat * itemsize(env.out.dtype))
    elif not mo[2] and any(mi):
        raise env.fail("broadcast between tensors that both lack the last axis")
    elif not mi[2]:
        _scalar_rows(env, src, li, mi)
    else:
        _replicate_rows(env, src, li, mi, mo)


ROW_READER_OPS = ("add", "sub", "mul", "max", "min")


def row_source(an, index: int) -> bool:
    """Whether node ``index`` is a broadcast that repeats one row (its input has only the last axis) and is read
    only by binary vector ops of its own shape, in its own stage, whose other operand is a full tensor: its
    buffer then holds only the first row and those readers read it with row stride 0."""
    info = an.infos[index]
    if info.kind != "bcast" or index in an.outputs or index in an.post or info.operands[0].is_const:
        return False
    src = info.operands[0].node
    mi, mo = an.mask(src), an.mask(index)
    if src in an.bits or an.is_virtual(src) or mi[0] or mi[1] or not mi[2] or not mo[1]:
        return False
    readers = [j for j in an.infos if index in an.operand_nodes(j)]
    return bool(readers) and all(_reads_as_row(an, j, index, mo) for j in readers)


def _reads_as_row(an, reader: int, index: int, mask: tuple) -> bool:
    info = an.infos[reader]
    if info.kind != "binary" or info.op not in ROW_READER_OPS or reader in an.post or an.mask(reader) != mask:
        return False
    if any(o.is_const or an.is_virtual(o.node) for o in info.operands):
        return False
    others = [o.node for o in info.operands if o.node != index]
    return len(others) == 1 and an.mask(others[0]) == mask and an.infos[others[0]].kind != "bcast" and \
        an.graph.nodes[reader].dtype == an.graph.nodes[index].dtype == an.graph.nodes[others[0]].dtype


def _scalar_rows(env: NodeEnv, src, li, mi) -> None:
    """Every output row (ia, ib) = the input value at (ia or 0, ib or 0)."""
    em, lo, out = env.em, env.plan.layout, env.out
    if itemsize(out.dtype) == 1:
        raise env.fail("broadcast of a byte tensor along its last axis")
    reg = em.reg(src.dtype, "bc")
    em.v_to_s()
    if not mi[0] and not mi[1]:
        reg.set_as(src.at(0))
        vec.dup(em, Loc(out), lo.flat, reg)
        return
    a_rows = lo.ea if mi[0] else 1

    def fill(ia, ib):
        reg.set_as(src.at(li.offset(ia if mi[0] else 0, ib if mi[1] else 0)))
        vec.dup(em, Loc(out, lo.offset(ia, ib)), lo.pitch, reg)

    _loop2(em, a_rows, lo.eb if mi[1] else 1, fill)
    if not mi[1] and lo.eb > 1:
        _spread_rows(env, a_rows)
    if not mi[0] and lo.ea > 1:
        _spread_blocks(env)


def _spread_rows(env: NodeEnv, a_rows: int) -> None:
    """Row 0 of each A-slab (already filled) copied to the slab's other rows."""
    em, lo, out = env.em, env.plan.layout, env.out

    def spread(ia, _):
        vec.copy_rows(em, Loc(out, lo.offset(ia, 1)), Loc(out, lo.offset(ia, 0)), lo.pitch, 0, lo.eb - 1, lo.pitch)
    _loop2(em, a_rows, 1, spread)


def _spread_blocks(env: NodeEnv) -> None:
    """A-slab 0 copied to the other A-slabs."""
    em, lo, out = env.em, env.plan.layout, env.out
    block = lo.eb * lo.pitch
    nbytes = block * itemsize(out.dtype)
    if lo.ea == 2:
        vec.copy(em, Loc(out, block), Loc(out), nbytes)
        return
    with em.kb.for_range(1, lo.ea) as ia:
        vec.copy(em, Loc(out, ia * block), Loc(out), nbytes)


def _replicate_rows(env: NodeEnv, src, li, mi, mo) -> None:
    em, lo, out = env.em, env.plan.layout, env.out
    if mi[1] == mo[1]:                      # only A added: copy the whole slab
        vec.copy(em, Loc(out), Loc(src), li.flat * itemsize(out.dtype))
        _spread_blocks(env)
        return
    if mi[0] == mo[0] and lo.ea > 1:        # B added, A kept: per slab, replicate its row
        def per_slab(ia, _):
            vec.copy_rows(em, Loc(out, lo.offset(ia, 0)), Loc(src, li.offset(ia, 0)), lo.pitch, 0, lo.eb, lo.pitch)
        _loop2(em, lo.ea, 1, per_slab)
        return
    vec.copy_rows(em, Loc(out), Loc(src), lo.pitch, 0, lo.rows, lo.pitch)


def _loop2(em, na: int, nb: int, body) -> None:
    """body(ia, ib) over na x nb, as kernel loops where the count exceeds 1."""
    def inner(ia):
        if nb > 1:
            with em.kb.for_range(0, nb) as ib:
                body(ia, ib)
        else:
            body(ia, 0)
    if na > 1:
        with em.kb.for_range(0, na) as ia:
            inner(ia)
    else:
        inner(0)
