"""Transposing moves on the vector pipe: ``vnchwconv`` (TIK ``vec_trans_scatter``) and ``vtranspose``.

``vnchwconv`` takes 16 destination and 16 source block addresses (TIK's dst_list / src_list, each a UB operand on
a 32-byte boundary).  Per repeat it reads the 16 source blocks as rows S[k] and writes the 16 destination blocks
D[e] (CANN cce-intrinsic reference ``scatter_vnchwconv``):

* 16-bit: D[e][k] = S[k][e] — a 16 x 16 transpose;
* 32-bit: D[2c][k] = S[k][c], D[2c+1][k] = S[k+8][c] (c, k < 8) — column c of the 16 x 8 source fills two blocks;
* 8-bit: D[e][k + 16*dst_high_half] = S[k][e + 16*src_high_half] (e, k < 16) — one half of each block is read
  and one half written, the other half of the destination blocks keeps its bytes.

Every address advances by its rep stride (in blocks, a 16-bit field) per repeat; with repeat_times == 1 the
stride is still added once (TIK manual, vec_trans_scatter notes; tik.md).  Repeats run in order, so a repeat may
read blocks an earlier one wrote; within a repeat all sources are read before any destination is written.

``vtranspose(dst, src)`` transposes one contiguous 16 x 16 matrix of 16-bit elements (512 bytes); dst may equal
src, partial overlap is rejected (TIK: "vtranspose not support partially address overlapping").
"""
from __future__ import annotations

import numpy as np

from npusim.errors.sim import InvalidOperandError, OverlapError
from npusim.sim.checks import check_access, check_aligned, check_dtype
from npusim.sim.expr import Const
from npusim.sim.geometry import REDUCE_STRIDE_MAX
from npusim.sim.isa.context import CompileContext
from npusim.sim.isa.spec import CompiledInstr, InstrSpec, InstrStatic, OperandSpec
from npusim.sim.isa.vector import compile_repeat, compile_stride
from npusim.sim.kernel import BufRef

ADDRESS_LIST_LEN = 16      # addresses in dst_list / src_list (TIK VNCHWCONV_LIST_LEN; the VA registers hold 16)
TRANSPOSE_EDGE = 16        # vtranspose: a 16 x 16 matrix of 16-bit elements
# rep strides of vnchwconv are 16-bit fields in blocks, like vcadd's (TIK MAX_REP_STRIDE_DOUBLE_BYTE)
TRANS_STRIDE_HIGH = REDUCE_STRIDE_MAX

VNCHWCONV_OPERANDS = (OperandSpec("dst_high_half", "bool", False), OperandSpec("src_high_half", "bool", False),
                      OperandSpec("dst_list", "args"), OperandSpec("src_list", "args"),
                      OperandSpec("repeat_times", "int"), OperandSpec("dst_rep_stride", "int", 0),
                      OperandSpec("src_rep_stride", "int", 0))
VTRANSPOSE_OPERANDS = (OperandSpec("dst", "tensor"), OperandSpec("src", "tensor"))


def scatter_rows(rows: np.ndarray) -> np.ndarray:
    """The destination rows of vnchwconv repeats from their 16 source rows (... x 16 x width; 8-bit: the 16 x 16
    halves read): the transpose, re-cut into rows of the same width (16-bit and 8-bit halves: a plain transpose;
    32-bit: each 16-element column fills two 8-element blocks)."""
    return np.swapaxes(rows, -1, -2).reshape(rows.shape)


def _tensor_list(kc: CompileContext, name: str, value) -> tuple:
    if not isinstance(value, tuple) or len(value) != ADDRESS_LIST_LEN or \
            not all(isinstance(v, BufRef) for v in value):
        raise kc.fail(InvalidOperandError, f"there should be {ADDRESS_LIST_LEN} addresses in {name}, got "
                                           f"{len(value) if isinstance(value, tuple) else value!r}")
    return tuple(kc.tensor(f"{name}[{i}]", ref, ("UB",)) for i, ref in enumerate(value))


def _bases(ops):
    """Start elements of a list of operands, as a function of env (an int64 array)."""
    if all(isinstance(op.base, Const) for op in ops):
        values = np.array([op.base.value for op in ops], dtype=np.int64)
        return lambda env: values
    funcs = [op.base for op in ops]
    return lambda env: np.array([f.value if isinstance(f, Const) else f(env) for f in funcs], dtype=np.int64)


class _ListAccess:
    """Index arithmetic and checks of one address list (dst_list or src_list)."""

    def __init__(self, kc: CompileContext, ops, per_block: int, half: int, high: bool):
        self.ops, self.site, self.block_bytes = ops, kc.site, kc.chip.block_bytes
        self.bases = _bases(ops)
        self.static = all(isinstance(op.base, Const) for op in ops)
        width = half if half else per_block
        self.lanes = np.arange(width, dtype=np.int64) + (half if high and half else 0)
        self.per_block = per_block
        for op in ops:
            kc.check_static_alignment(op)

    def indices(self, env, starts: np.ndarray) -> np.ndarray:
        """(repeats, 16, width) element indices into the view, checked."""
        bases = self.bases(env)
        if not self.static:
            for op, base in zip(self.ops, bases):
                check_aligned(self.site, op.role, int(base) * op.isz, self.block_bytes)
        heads = starts[:, None] + bases[None, :]
        for column, op in enumerate(self.ops):
            first, last = int(heads[:, column].min()), int(heads[:, column].max()) + self.per_block - 1
            if first < op.lo or last >= op.hi:
                check_access(self.site, op.role, op.buffer, first, last, op.lo, op.hi)
        return heads[:, :, None] + self.lanes[None, None, :]


def _may_overlap(dst_idx: np.ndarray, src_idx: np.ndarray) -> bool:
    """Whether some destination element is also a source element (a cheap range test first)."""
    if dst_idx.max() < src_idx.min() or src_idx.max() < dst_idx.min():
        return False
    return bool(np.intersect1d(dst_idx, src_idx).size)


def compile_vnchwconv(instr, spec, kc: CompileContext) -> CompiledInstr:
    site = kc.site
    dsts = _tensor_list(kc, "dst_list", instr.arg("dst_list"))
    srcs = _tensor_list(kc, "src_list", instr.arg("src_list"))
    dtype = dsts[0].dtype
    for op in dsts + srcs:
        if op.dtype != dtype:
            raise kc.fail(InvalidOperandError, f"Intrinsic vnchwconv's src's dtype should be equal to dst's dtype "
                                               f"({op.role} is {op.dtype}, dst_list[0] is {dtype})")
    check_dtype(site, kc.chip, spec.opcode, dtype)
    isz = dsts[0].isz
    per_block = kc.chip.block_elems(isz)
    flags = [kc.expr(instr.arg(name)) for name in ("dst_high_half", "src_high_half")]
    if not all(isinstance(f, Const) for f in flags):
        raise kc.fail(InvalidOperandError, "dst_high_half and src_high_half should be bool immediates")
    dst_high, src_high = (bool(f.value) for f in flags)
    if isz != 1 and (dst_high or src_high):
        raise kc.fail(InvalidOperandError, f"dst_high_half / src_high_half apply to 8-bit data only, not {dtype}")
    half = per_block // 2 if isz == 1 else 0
    dst_acc = _ListAccess(kc, dsts, per_block, half, dst_high)
    src_acc = _ListAccess(kc, srcs, per_block, half, src_high)
    repeat_c = compile_repeat(kc, instr.arg("repeat_times"))
    strides = [compile_stride(kc, instr, name, TRANS_STRIDE_HIGH) for name in ("dst_rep_stride", "src_rep_stride")]
    key = dsts[0].key
    index = site.instr_index

    def value(compiled, env):
        return compiled.value if isinstance(compiled, Const) else compiled(env)

    def run(ctx):
        env = ctx.env
        repeat = value(repeat_c, env)
        if repeat:
            steps = np.arange(repeat, dtype=np.int64) if repeat > 1 else np.ones(1, dtype=np.int64)
            dst_idx = dst_acc.indices(env, steps * value(strides[0], env) * per_block)
            src_idx = src_acc.indices(env, steps * value(strides[1], env) * per_block)
            view = ctx.views[key]
            if repeat > 1 and _may_overlap(dst_idx, src_idx):
                for r in range(repeat):       # a later repeat reads what an earlier one wrote: in order
                    view[dst_idx[r]] = scatter_rows(view[src_idx[r]])
            else:
                view[dst_idx] = scatter_rows(view[src_idx])
        ctx.append((index, repeat))

    static = InstrStatic(index, spec.opcode, "V", spec.cost_kind, spec.cost_key, dtype, text=site.text)
    return CompiledInstr(static, run, local_only=True)


def compile_vtranspose(instr, spec, kc: CompileContext) -> CompiledInstr:
    site = kc.site
    dst = kc.tensor("dst", instr.arg("dst"), ("UB",))
    src = kc.tensor("src", instr.arg("src"), ("UB",))
    if dst.dtype != src.dtype:
        raise kc.fail(InvalidOperandError, f"dtype of dst and src should be the same, input dst: {dst.dtype}, "
                                           f"src: {src.dtype}")
    check_dtype(site, kc.chip, spec.opcode, dst.dtype)
    count = TRANSPOSE_EDGE * TRANSPOSE_EDGE
    for op in (dst, src):
        kc.check_static_alignment(op)
    align = kc.chip.block_bytes
    index = site.instr_index

    def start(op, env):
        base = op.base.value if isinstance(op.base, Const) else op.base(env)
        if not isinstance(op.base, Const):
            check_aligned(site, op.role, base * op.isz, align)
        if base < op.lo or base + count > op.hi:
            check_access(site, op.role, op.buffer, base, base + count - 1, op.lo, op.hi)
        return base

    def run(ctx):
        d0, s0 = start(dst, ctx.env), start(src, ctx.env)
        if dst.key == src.key and d0 != s0 and d0 < s0 + count and s0 < d0 + count:
            raise site.error(OverlapError, "vtranspose not support partially address overlapping")
        view = ctx.views[dst.key]
        matrix = view[s0:s0 + count].reshape(TRANSPOSE_EDGE, TRANSPOSE_EDGE)
        view[d0:d0 + count] = matrix.T.reshape(-1)   # the .T copy is taken before the store (fancy RHS)
        ctx.append((index, 1))

    static = InstrStatic(index, spec.opcode, "V", spec.cost_kind, spec.cost_key, dst.dtype, text=site.text)
    return CompiledInstr(static, run, local_only=True)


ROWS = (
    InstrSpec("vnchwconv", "vector_transpose", VNCHWCONV_OPERANDS, compile_vnchwconv, scatter_rows, "vector",
              "vnchwconv", "per repeat: dst block e, element k = src block k, element e (16-bit; 32-bit and 8-bit "
                           "halves as CANN's scatter_vnchwconv)"),
    InstrSpec("vtranspose", "vector_transpose", VTRANSPOSE_OPERANDS, compile_vtranspose, None, "vector",
              "vtranspose", "dst = the 16 x 16 transpose of src (16-bit, 512 contiguous bytes)"),
)
