"""Reductions inside a tile, and their accumulation across tiles.

Last axis (each row of the tile to one value):
* sum with vcadd: one vcadd per repeat-wide lane chunk gives partial sums (adjacent-pair trees, as the hardware
  adds), a second vcadd level sums the partials; one instruction covers up to max_repeat rows (repeat stride = row
  pitch);
* max / min with vcmax / vcmin: chunks folded with vmax / vmin first, then vcmax writes (value, index) pairs one
  block apart and a one-lane vcadd packs the values;
* otherwise (prod, dtypes without a vc instruction): chunks and halves folded with the binary op down to one
  block per row, the last block finished by the scalar unit.
Folding takes one instruction per repeat-wide chunk over all rows; when rows are few and long, the chunks are
several repeats wide (one multi-repeat instruction per chunk and row) and the folded chunk is then halved down to
one repeat.
Other axis (rows of a tile to one row): halving tree of vadd / vmax / vmin / vmul over whole rows.
Across tiles (accumulate mode) the tile's result is combined into a group accumulator with the binary op.
"""
from __future__ import annotations

import math

import numpy as np

from npusim.sim import E
from npusim.sim.geometry import VECTOR_STRIDE_MAX
from npusim.sim.kernel import BinOp
from te_compat.schedule import vec
from te_compat.schedule.common import (UnsupportedPattern, ceil_div, itemsize, lanes_of, per_block, rep_stride,
                                       round_up)
from te_compat.schedule.env import NodeEnv, PlanEnv
from te_compat.schedule.vec import Loc

COMBINE = {"sum": "vadd", "prod": "vmul", "max": "vmax", "min": "vmin"}
VC = {"sum": "vcadd", "max": "vcmax", "min": "vcmin"}
SCALAR_OP = {"sum": "add", "prod": "mul", "max": "max", "min": "min"}


def identity(op: str, dtype: str):
    """The value an accumulator starts from."""
    if op == "sum":
        return 0
    if op == "prod":
        return 1
    if np.dtype(dtype).kind == "f":
        return -math.inf if op == "max" else math.inf
    info = np.iinfo(np.dtype(dtype))
    return int(info.min) if op == "max" else int(info.max)


def _method(chip, op: str, dtype: str) -> str:
    if op == "sum" and chip.supports("vcadd", dtype):
        return "vcadd"
    if op in ("max", "min") and chip.supports(VC[op], dtype) and chip.supports("vcadd", dtype) and \
            chip.supports(COMBINE[op], dtype):
        return "vcmax"
    return "fold"


def _shape(p: PlanEnv) -> tuple:
    """(rows, row length, pitch) of the reduced input as rows reduced along their length, or None for the
    halving tree over rows."""
    src = p.info.operands[0].node
    li = p.layouts[src]
    if p.an.canon.reduced[p.index] == 2:
        return li.rows, li.ec, li.pitch
    if not li.has_c and li.ea == 1:
        return 1, li.eb, round_up(li.eb, per_block(p.chip, p.node.dtype))
    if not li.has_c:
        raise UnsupportedPattern(f"reduce {p.node.name}: rows of a tensor without the last axis")
    return None


# -- temps --------------------------------------------------------------------------------------------------------
def temps(p: PlanEnv) -> list:
    if p.an.canon.reduced.get(p.index) is None:
        return []
    dtype, op = p.node.dtype, p.info.op
    shape = _shape(p)
    isz = itemsize(dtype)
    if shape is None:
        li = p.layouts[p.info.operands[0].node]
        if li.eb > 1 and p.info.operands[0].node not in p.dying:
            return [li.ea * ceil_div(li.eb, 2) * li.pitch * isz]
        return []
    rows, n, _ = shape
    lanes, method, epb = lanes_of(p.chip, dtype), _method(p.chip, op, dtype), per_block(p.chip, dtype)
    if method == "vcadd":
        sizes, k = [], ceil_div(n, lanes)
        while k > 1:
            sizes.append(rows * round_up(k, epb) * isz)
            k = ceil_div(k, lanes)
        return sizes
    if method == "vcmax":
        return ([rows * _work_pitch(p.chip, dtype, rows, n, method) * isz] if n > lanes else []) + \
            [rows * p.chip.block_bytes]
    return [rows * _work_pitch(p.chip, dtype, rows, n, method) * isz]


# -- emission -----------------------------------------------------------------------------------------------------
def emit(env: NodeEnv) -> None:
    p = env.plan
    if p.an.canon.reduced.get(p.index) is None:
        vec.copy(env.em, Loc(env.out), Loc(env.args[0]), p.layout.flat * itemsize(env.out.dtype))
    elif _shape(p) is None:
        _halving(env)
    else:
        rows, n, pitch = _shape(p)
        method = _method(env.em.chip, env.info.op, env.dtype)
        src, dst = Loc(env.args[0]), Loc(env.out)
        {"vcadd": _vcadd, "vcmax": _vcmax, "fold": _fold}[method](env, src, rows, n, pitch, dst)
    if env.acc is not None:
        op = COMBINE[env.info.op]
        vec.check(env.em, op, env.dtype)
        acc = Loc(env.acc)
        vec.flat(env.em, op, {"dst": acc, "src0": acc, "src1": Loc(env.out)}, p.layout.flat)


def init_acc(em, acc, op: str, dtype: str, n: int) -> None:
    """acc[0:n] = the identity of ``op``."""
    vec.dup(em, Loc(acc), n, identity(op, dtype))


def _vc_rows(em, opcode: str, src: Loc, nrows: int, pitch: int, mask: int, dst: Loc, dst_stride: int) -> None:
    """One vc instruction per max_repeat rows: row r's first ``mask`` lanes -> dst result r."""
    per_result = 2 if opcode in ("vcmax", "vcmin") else 1
    max_repeat = em.chip.max_repeat
    for r0 in range(0, nrows, max_repeat):
        repeat = min(max_repeat, nrows - r0)
        em.kb.emit(opcode, mask=mask, dst=dst.ref(r0 * dst_stride * per_result), src=src.ref(r0 * pitch),
                   repeat_times=repeat, dst_rep_stride=dst_stride,
                   src_rep_stride=pitch * itemsize(src.dt) // em.chip.block_bytes)


def _vcadd(env: NodeEnv, src: Loc, rows: int, n: int, pitch: int, dst: Loc, level: int = 0) -> None:
    em, chip = env.em, env.em.chip
    lanes, max_repeat, stride = lanes_of(chip, src.dt), chip.max_repeat, rep_stride(chip, src.dt)
    k = ceil_div(n, lanes)
    if k == 1:
        _vc_rows(em, "vcadd", src, rows, pitch, n, dst, 1)
        return
    kp = round_up(k, per_block(chip, src.dt))
    partial = Loc(env.temps[level], 0, src.dt)
    if k * ceil_div(rows, max_repeat) <= rows * (ceil_div(n // lanes, max_repeat) + (1 if n % lanes else 0)):
        for c in range(k):
            _vc_rows(em, "vcadd", src.shift(c * lanes), rows, pitch, min(lanes, n - c * lanes), partial.shift(c), kp)
    else:
        def per_row(r):
            row, out = src.shift(r * pitch), partial.shift(r * kp)
            full = n // lanes
            for c0 in range(0, full, max_repeat):
                em.kb.vcadd(lanes, out.ref(c0), row.ref(c0 * lanes), min(max_repeat, full - c0), 1, 1, stride)
            if n % lanes:
                em.kb.vcadd(n % lanes, out.ref(full), row.ref(full * lanes), 1, 1, 1, stride)
        with em.kb.for_range(0, rows) as r:
            per_row(r)
    _vcadd(env, partial, rows, k, kp, dst, level + 1)


#: the fold's work buffer grows past one repeat per row only up to this many bytes over all rows
FOLD_WORK_BYTES = 8192


def _fold_width(chip, dtype: str, rows: int, n: int, method: str) -> int:
    """Elements per chunk when a tile's rows are folded chunk by chunk: one repeat's lanes, or (few long rows) a
    multiple of them up to FOLD_WORK_BYTES over all rows, so that each chunk is one multi-repeat instruction per
    row instead of one instruction per repeat-wide chunk.  The vcmax method reads the work rows with their pitch
    as repeat stride, which must fit the instruction."""
    lanes, max_repeat = lanes_of(chip, dtype), chip.max_repeat
    repeats = FOLD_WORK_BYTES // max(1, rows * lanes * itemsize(dtype))
    repeats = min(repeats, ceil_div(n, lanes) // 2, VECTOR_STRIDE_MAX // rep_stride(chip, dtype))
    if repeats < 2:
        return lanes
    repeats = 1 << (repeats.bit_length() - 1)
    width = repeats * lanes
    by_row = rows * (ceil_div(n, width) + repeats.bit_length())
    if by_row >= ceil_div(n, lanes) * ceil_div(rows, max_repeat):
        return lanes
    return width


def _work_pitch(chip, dtype: str, rows: int, n: int, method: str) -> int:
    """Elements per row of the fold's work buffer."""
    width = _fold_width(chip, dtype, rows, n, method)
    return round_up(min(n, width), per_block(chip, dtype))


def _fold_chunks(env: NodeEnv, opcode: str, src: Loc, rows: int, n: int, pitch: int, work: Loc, pw: int,
                 method: str) -> int:
    """work row r = src row r with its chunks (see :func:`_fold_width`) folded together by ``opcode``, then
    halved down to one repeat's lanes; returns the valid lanes."""
    em = env.em
    lanes = lanes_of(em.chip, src.dt)
    width = _fold_width(em.chip, src.dt, rows, n, method)
    vec.copy_rows(em, work, src, pw, pitch, rows, pw)
    for c0 in range(width, n, width):
        vec.rows(em, opcode, {"dst": work, "src0": work, "src1": src.shift(c0)},
                 {"dst": pw, "src0": pw, "src1": pitch}, rows, min(width, n - c0))
    m = min(n, width)
    while m > lanes:
        h = m // 2                       # width is a power of two times the lanes: halves stay block-aligned
        vec.rows(em, opcode, {"dst": work, "src0": work, "src1": work.shift(h)},
                 {"dst": pw, "src0": pw, "src1": pw}, rows, h)
        m = h
    return m


def _vcmax(env: NodeEnv, src: Loc, rows: int, n: int, pitch: int, dst: Loc) -> None:
    em, op = env.em, env.info.op
    lanes = lanes_of(em.chip, src.dt)
    temps = list(env.temps)
    if n > lanes:
        work = Loc(temps.pop(0), 0, src.dt)
        pw = _work_pitch(em.chip, src.dt, rows, n, "vcmax")
        n = _fold_chunks(env, COMBINE[op], src, rows, n, pitch, work, pw, "vcmax")
        src, pitch = work, pw
    pairs = Loc(temps.pop(0), 0, src.dt)
    per = per_block(em.chip, src.dt)
    _vc_rows(em, VC[op], src, rows, pitch, n, pairs, per // 2)
    _vc_rows(em, "vcadd", pairs, rows, per, 1, dst, 1)


def _fold(env: NodeEnv, src: Loc, rows: int, n: int, pitch: int, dst: Loc) -> None:
    em, op, dtype = env.em, env.info.op, src.dt
    opcode = COMBINE[op]
    vec.check(em, opcode, dtype)
    epb, lanes = per_block(em.chip, dtype), lanes_of(em.chip, dtype)
    pw = _work_pitch(em.chip, dtype, rows, n, "fold")
    work = Loc(env.temps[0], 0, dtype)
    m = _fold_chunks(env, opcode, src, rows, n, pitch, work, pw, "fold")
    while m > epb:
        h = round_up(ceil_div(m, 2), epb)
        vec.rows(em, opcode, {"dst": work, "src0": work, "src1": work.shift(h)}, {"dst": pw, "src0": pw, "src1": pw},
                 rows, m - h)
        m = h
    _scalar_finish(env, work, rows, m, pw, dst)


def _scalar_finish(env: NodeEnv, work: Loc, rows: int, m: int, pw: int, dst: Loc) -> None:
    em, dtype = env.em, work.dt
    acc, val = em.reg(dtype, "racc"), em.reg(dtype, "rval")
    em.v_to_s()

    def per_row(r):
        acc.set_as(work.ref(r * pw))
        for j in range(1, m):
            val.set_as(work.ref(r * pw + j))
            acc.set_as(E(BinOp(SCALAR_OP[env.info.op], acc.expr, val.expr)))
        dst.ref(r).set_as(acc)
    if rows > 1:
        with em.kb.for_range(0, rows) as r:
            per_row(r)
    else:
        per_row(0)


def _halving(env: NodeEnv) -> None:
    """Rows of each A-slab combined pairwise (first half += second half) until one row is left."""
    p, em, op = env.plan, env.em, COMBINE[env.info.op]
    src_index = p.info.operands[0].node
    li = p.layouts[src_index]
    vec.check(em, op, env.dtype)
    src, slab, m = Loc(env.args[0]), li.eb * li.pitch, li.eb
    in_place = src_index in p.dying or m == 1
    work, ws = (src, slab) if in_place else (Loc(env.temps[0], 0, env.dtype), ceil_div(m, 2) * li.pitch)
    first = True
    while m > 1:
        h = m // 2
        base = src if first else work
        stride = slab if first else ws
        vec.rows(em, op, {"dst": work, "src0": base, "src1": base.shift((m - h) * li.pitch)},
                 {"dst": ws, "src0": stride, "src1": stride}, li.ea, h * li.pitch)
        if first and m % 2 and not in_place:
            vec.copy_rows(em, work.shift(h * li.pitch), src.shift(h * li.pitch), ws, slab, li.ea, li.pitch)
        first, m = False, m - h
    _gather_slab_rows(env, work, ws, li)


def _gather_slab_rows(env: NodeEnv, work: Loc, ws: int, li) -> None:
    em, out = env.em, Loc(env.out)
    if li.ea == 1:
        vec.copy(em, out, work, li.pitch * itemsize(out.dt))
    else:
        vec.copy_rows(em, out, work, li.pitch, ws, li.ea, li.pitch)
