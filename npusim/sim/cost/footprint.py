"""Which bytes an instruction may read and write, from the kernel's IR (static and conservative).

The cycle model asks one question: may instruction ``reader`` read something instruction ``writer`` wrote?  Each
tensor operand becomes a byte range of its address space (a local scope at the buffer's address, a GM parameter,
or the CMPMASK register): its start from the operand's offset expression, bounded over the enclosing loops'
ranges; its extent from the instruction's repeat, strides and bursts.  Whatever cannot be bounded statically
(an offset from a scalar register, a run-time stride) widens to the whole buffer, so an answer "no" is always
safe.  Answers are memoised per (writer, reader) pair; footprints are computed on first use.
"""
from __future__ import annotations

import math
from typing import Optional

from npusim.sim.dtypes import itemsize
from npusim.sim.isa import ISA, REQUIRED
from npusim.sim.isa.transpose import TRANSPOSE_EDGE
from npusim.sim.kernel import BinOp, BufRef, Cast, If, Instr, Loop, UnOp, Var

CMPMASK = "CMPMASK"                  # the compare-mask register vcmp writes and vsel reads
WRITTEN = frozenset({"dst", "dst_fm", "dst_list"})   # dst_list: vnchwconv's 16 destination blocks
ADDRESS_LISTS = frozenset({"dst_list", "src_list"})   # tuples of tensor operands (vnchwconv)
ACCUMULATING = frozenset({"vaxpy", "vmla", "mmad", "vmadd", "vmaddrelu"})   # these also read their destination
REDUCE_RESULTS = {"vcadd": 1, "vcmax": 2, "vcmin": 2}  # results per repeat (dst_rep_stride counts results)
_INF = math.inf
_MISSING = object()


def expr_range(expr, ranges: dict) -> Optional[tuple]:
    """(lo, hi) bounds of an integer expression over loop-variable ``ranges``; None when unbounded."""
    if isinstance(expr, bool) or isinstance(expr, int):
        return int(expr), int(expr)
    if isinstance(expr, Var):
        return ranges.get(expr.name)
    if isinstance(expr, Cast):
        return expr_range(expr.arg, ranges)
    if isinstance(expr, UnOp) and expr.op == "neg":
        inner = expr_range(expr.arg, ranges)
        return None if inner is None else (-inner[1], -inner[0])
    if isinstance(expr, BinOp):
        return _bin_range(expr, ranges)
    return None


def _bin_range(expr: BinOp, ranges: dict) -> Optional[tuple]:
    lhs, rhs = expr_range(expr.lhs, ranges), expr_range(expr.rhs, ranges)
    if lhs is None or rhs is None:
        return None
    (a, b), (c, d) = lhs, rhs
    if expr.op == "add":
        return a + c, b + d
    if expr.op == "sub":
        return a - d, b - c
    if expr.op == "mul":
        products = (a * c, a * d, b * c, b * d)
        return min(products), max(products)
    if expr.op in ("min", "max"):
        pick = min if expr.op == "min" else max
        return pick(a, c), pick(b, d)
    if expr.op == "floordiv" and c == d and c > 0:
        return a // c, b // c
    if expr.op == "mod" and c == d and c > 0 and a >= 0:
        return (a % c, b % c) if b - a < c and a % c <= b % c else (0, c - 1)
    if expr.op == "shl" and c == d and 0 <= c:
        return a << c, b << c
    return None


def instructions_in_scope(body: tuple) -> list:
    """[(Instr, loop ranges)] in pre-order (the trace's instruction index), each with the bounds of the loop
    variables around it (a variable whose bounds are not static has none)."""
    found: list = []

    def walk(stmts, ranges):
        for stmt in stmts:
            if isinstance(stmt, Instr):
                found.append((stmt, ranges))
            elif isinstance(stmt, Loop):
                begin, end = expr_range(stmt.begin, ranges), expr_range(stmt.end, ranges)
                inner = dict(ranges)
                if begin is not None and end is not None:
                    inner[stmt.var] = (begin[0], max(begin[0], end[1] - 1))
                else:
                    inner.pop(stmt.var, None)
                walk(stmt.body, inner)
            else:
                walk(stmt.then_body, ranges)
                walk(stmt.else_body, ranges)

    walk(body, {})
    return found


class Footprints:
    """Static read/write byte ranges of a kernel's instructions on ``chip`` (see the module docstring)."""

    def __init__(self, kernel, chip):
        self.kernel, self.chip = kernel, chip
        self._scope = instructions_in_scope(kernel.body)
        self._buffers = {b.name: b for b in kernel.buffers}
        self._params = {p.name: p for p in kernel.params}
        self._cache: dict = {}
        self.pairs: dict = {}           # reader -> {writer: may_depend's answer} (read directly by CoreSim)
        self._spaces: dict = {}         # (buffer, view dtype) -> _space
        self._operands: dict = {}       # opcode -> _operands_of

    def may_depend(self, writer: int, reader: int) -> bool:
        """Whether instruction ``reader`` may read bytes instruction ``writer`` writes (memoised)."""
        row = self.pairs.get(reader)
        if row is None:
            row = self.pairs[reader] = {}
        answer = row.get(writer)
        if answer is None:
            writes = self.regions(writer)[1]
            reads = self.regions(reader)[0]
            answer = row[writer] = any(ws == rs and wlo < rhi and rlo < whi
                                       for ws, wlo, whi in writes for rs, rlo, rhi in reads)
        return answer

    def regions(self, index: int) -> tuple:
        """(reads, writes): tuples of (space, lo, hi) byte ranges instruction ``index`` may touch."""
        found = self._cache.get(index)
        if found is None:
            found = self._cache[index] = self._compute(index)
        return found

    # ---- computing one instruction's footprint ---------------------------------------------------------------
    def _compute(self, index: int) -> tuple:
        instr, ranges = self._scope[index]
        opcode = instr.opcode
        defaults, names = self._operands_of(opcode)
        args = dict(instr.args)
        accumulating = opcode in ACCUMULATING
        reads, writes = [], []
        for name, value in instr.args:
            if isinstance(value, str) and value == CMPMASK:
                reads.append((CMPMASK, 0, 1))
            for ref in (value if name in ADDRESS_LISTS else (value,)):
                if not isinstance(ref, BufRef):
                    continue
                region = self._region(opcode, name, ref, args, defaults, names, ranges)
                if name in WRITTEN:
                    writes.append(region)
                    if accumulating:
                        reads.append(region)
                else:
                    reads.append(region)
        if opcode == "vcmp":
            writes.append((CMPMASK, 0, 1))
        return tuple(reads), tuple(writes)

    def _operands_of(self, opcode: str) -> tuple:
        """({operand: default, None when required}, operand names) of an ISA row (empty for an unknown opcode)."""
        found = self._operands.get(opcode)
        if found is None:
            spec = ISA.get(opcode)
            defaults: dict = {}
            for operand in (spec.operands if spec is not None else ()):
                if operand.name not in defaults:          # the first operand of a name binds (InstrSpec.operand)
                    defaults[operand.name] = None if operand.default is REQUIRED else operand.default
            found = self._operands[opcode] = (defaults, frozenset(defaults))
        return found

    def _space(self, ref: BufRef) -> tuple:
        """(space, lo, hi, itemsize of the operand's view) of a tensor operand's buffer."""
        key = (ref.buffer, ref.dtype)
        found = self._spaces.get(key)
        if found is None:
            found = self._spaces[key] = self._buffer_space(ref)
        return found

    def _buffer_space(self, ref: BufRef) -> tuple:
        buffer = self._buffers.get(ref.buffer)
        if buffer is not None:
            size = math.prod(buffer.shape) * itemsize(buffer.dtype) if buffer.shape else itemsize(buffer.dtype)
            return buffer.scope, buffer.addr_bytes, buffer.addr_bytes + size, itemsize(ref.dtype or buffer.dtype)
        param = self._params.get(ref.buffer)
        dtype = ref.dtype or (param.dtype if param is not None else "uint8")
        return ("GM", ref.buffer), 0, _INF, itemsize(dtype)

    def _region(self, opcode: str, name: str, ref: BufRef, args: dict, defaults: dict, names: frozenset,
                ranges: dict) -> tuple:
        space, lo, hi, isz = self._space(ref)
        offset = expr_range(ref.offset, ranges)
        if offset is None:
            return space, lo, hi
        start = lo + offset[0] * isz
        extent = self._extent(opcode, name, args, defaults, names, isz)
        return space, start, min(hi, lo + offset[1] * isz + extent)

    def _extent(self, opcode: str, name: str, args: dict, defaults: dict, names: frozenset, isz: int) -> float:
        """Bytes an operand spans from its start (inf when not static)."""
        chip = self.chip
        block = chip.block_bytes
        if opcode == "data_move":
            nburst = _value(args, defaults, "nburst")
            burst = _value(args, defaults, "burst")
            gap = _value(args, defaults, "src_stride" if name == "src" else "dst_stride")
            if not (isinstance(nburst, int) and isinstance(burst, int) and isinstance(gap, int)):
                return _INF
            return ((nburst - 1) * (burst + gap) + burst) * block
        repeat = _value(args, defaults, "repeat_times")
        if "repeat_times" not in args and "repeat_times" not in names:
            repeat = 1
        if not isinstance(repeat, int):
            repeat = chip.max_repeat
        rep = _value(args, defaults, f"{name}_rep_stride")
        blk = _value(args, defaults, f"{name}_blk_stride")
        if opcode in _OWN_EXTENTS:
            return _OWN_EXTENTS[opcode](self, name, args, defaults, repeat, isz)
        if name == "dst" and opcode in REDUCE_RESULTS:
            rep = rep if isinstance(rep, int) else None
            return _INF if rep is None else (max(repeat - 1, 0) * rep + 1) * REDUCE_RESULTS[opcode] * isz + block
        if opcode == "vcmpv" and name == "dst":
            return repeat * block
        rep = 0 if rep is None and repeat <= 1 else rep
        blk = 1 if blk is None else blk
        if not isinstance(rep, int) or not isinstance(blk, int):
            return _INF
        blocks = chip.repeat_bytes // block
        return ((max(repeat - 1, 0) * rep) + (blocks - 1) * blk + 1) * block


def _vtranspose_extent(footprints, name, args, defaults, repeat, isz) -> float:
    return TRANSPOSE_EDGE * TRANSPOSE_EDGE * isz                    # one 16 x 16 matrix


def _vnchwconv_extent(footprints, name, args, defaults, repeat, isz) -> float:
    """One block per address and repeat; with repeat_times 1 the stride still applies once."""
    stride = _value(args, defaults, name[:-len("_list")] + "_rep_stride")
    return _INF if not isinstance(stride, int) else (max(repeat - 1, 1) * stride + 1) * footprints.chip.block_bytes


def _vcpadd_extent(footprints, name, args, defaults, repeat, isz) -> float:
    """dst: dst_rep_stride counts half a repeat's bytes (lanes / 2 results); src: as any vector operand."""
    chip = footprints.chip
    rep = _value(args, defaults, f"{name}_rep_stride")
    if name != "dst":
        blk = _value(args, defaults, f"{name}_blk_stride")
        if not isinstance(rep, int) or not isinstance(blk, int):
            return _INF
        blocks = chip.repeat_bytes // chip.block_bytes
        return ((max(repeat - 1, 0) * rep) + (blocks - 1) * blk + 1) * chip.block_bytes
    return _INF if not isinstance(rep, int) else (max(repeat - 1, 0) * rep + 1) * (chip.repeat_bytes // 2)


#: opcode -> extent(footprints, operand name, args, defaults, repeat, itemsize) for operands whose span the
#: generic vector formula does not give
_OWN_EXTENTS = {"vtranspose": _vtranspose_extent, "vnchwconv": _vnchwconv_extent, "vcpadd": _vcpadd_extent}


def _value(args: dict, defaults: dict, name: str):
    """An operand's value: given, else its ISA default (None when it has none)."""
    value = args.get(name, _MISSING)
    return defaults.get(name) if value is _MISSING else value
