"""Element-wise nodes: unary, tensor-scalar (VS), binary, axpy and the multiply-add family.

Each maps to one vector instruction over the whole tile (a few when repeats exceed 255).  A constant operand
folds into the VS form when one exists for the op and dtype (x - c becomes vadds(x, -c), exactly the same IEEE
operation), otherwise it is duplicated into a temporary with vector_dup.  Bitwise ops run on 16-bit views;
relu without vrelu for the dtype is vmaxs(x, 0).  Ops whose operands are all constants never get here: the
analysis folds them into one constant (:mod:`te_compat.schedule.fold`), and a constant an instruction must read
as a tensor is filled into UB first (``Analysis.materialized``).
"""
from __future__ import annotations

from te_compat.schedule import vec
from te_compat.schedule.common import ceil_div, itemsize
from te_compat.schedule.env import ConstArg, NodeEnv, PlanEnv, same_buffer
from te_compat.schedule.layout import buffer_bytes
from te_compat.schedule.vec import Loc

UNARY = {"abs": "vabs", "exp": "vexp", "log": "vln", "rec": "vrec", "relu": "vrelu", "not": "vnot",
         "sqrt": "vsqrt", "rsqrt": "vrsqrt"}
VS = {"add": "vadds", "mul": "vmuls", "max": "vmaxs", "min": "vmins"}
BINARY = {"add": "vadd", "sub": "vsub", "mul": "vmul", "div": "vdiv", "max": "vmax", "min": "vmin",
          "and": "vand", "or": "vor"}
BITWISE = ("and", "or", "not")


def _full_temp(p: PlanEnv, dtype: str) -> int:
    return buffer_bytes(p.chip, p.layout, dtype)


# -- temps --------------------------------------------------------------------------------------------------------
def temps(p: PlanEnv) -> list:
    kind, dtype = p.info.kind, p.node.dtype
    if kind == "unary":
        needs = p.info.op == "relu" and not p.chip.supports("vrelu", dtype) and not p.chip.supports("vmaxs", dtype)
        return [_full_temp(p, dtype)] if needs else []
    if kind == "vs":
        return [] if p.chip.supports(VS[p.info.op], dtype) else [_full_temp(p, dtype)]
    if kind == "binary":
        sizes = [_full_temp(p, dtype)] if _binary_const(p) is not None and _vs_form(p) is None else []
        return sizes + ([_full_temp(p, dtype)] if _div_by_reciprocal(p.chip, p.info.op, dtype) else [])
    if kind == "fma":
        return [_full_temp(p, dtype) for pos in (0, 1) if p.is_const(pos)]
    return []


def _div_by_reciprocal(chip, op: str, dtype: str) -> bool:
    """A chip without vdiv for the dtype divides as lhs * vrec(rhs) (TBE's vdiv on such chips)."""
    return op == "div" and not chip.supports("vdiv", dtype) and chip.supports("vrec", dtype) and \
        chip.supports("vmul", dtype)


def _binary_const(p: PlanEnv):
    consts = [pos for pos in (0, 1) if p.is_const(pos)]
    return consts[0] if len(consts) == 1 else None


def _vs_form(p: PlanEnv):
    """(opcode, scalar sign, tensor position) when a binary op with one constant has an exact VS form."""
    op, pos, dtype = p.info.op, _binary_const(p), p.node.dtype
    if pos is None:
        return None
    if op in VS and p.chip.supports(VS[op], dtype):
        return VS[op], 1, 1 - pos
    if op == "sub" and pos == 1 and p.chip.supports("vadds", dtype):
        return "vadds", -1, 0
    return None


# -- emission -----------------------------------------------------------------------------------------------------
def _loc(buf, dtype: str = "") -> Loc:
    return Loc(buf, 0, dtype)


def _const_of(env: NodeEnv, position: int):
    from te_compat.schedule.env import const_value
    arg = env.args[position]
    return arg.value if isinstance(arg, ConstArg) else const_value(env.plan.an, env.info.operands[position])


def emit(env: NodeEnv) -> None:
    kind = env.info.kind
    if any(isinstance(a, ConstArg) for a in env.args) and kind in ("unary", "vs", "axpy") and \
            isinstance(env.args[0], ConstArg):
        raise env.fail("a constant operand where a tensor is needed")
    {"unary": _unary, "vs": _vs, "binary": _binary, "axpy": _axpy, "fma": _fma}[kind](env)


def _unary(env: NodeEnv) -> None:
    op, dtype, n = env.info.op, env.dtype, env.n
    dst, src = _loc(env.out), _loc(env.args[0])
    if op == "not":
        vec.check(env.em, "vnot", "uint16")
        n16 = ceil_div(n * itemsize(dtype), 2)
        vec.flat(env.em, "vnot", {"dst": dst.as_dtype("uint16"), "src": src.as_dtype("uint16")}, n16)
    elif env.em.chip.supports(UNARY[op], dtype):
        vec.flat(env.em, UNARY[op], {"dst": dst, "src": src}, n)
    elif op == "relu" and env.em.chip.supports("vmaxs", dtype):
        vec.flat(env.em, "vmaxs", {"dst": dst, "src": src}, n, scalar=0)
    elif op == "relu" and env.em.chip.supports("vmax", dtype):
        zero = _loc(env.temps[0], dtype)
        vec.dup(env.em, zero, n, 0)
        vec.flat(env.em, "vmax", {"dst": dst, "src0": src, "src1": zero}, n)
    else:
        raise env.fail(f"{UNARY[op]} does not support {dtype} on {env.em.chip.name}")


def _vs(env: NodeEnv) -> None:
    op, dtype, n = env.info.op, env.dtype, env.n
    dst, src = _loc(env.out), _loc(env.args[0])
    if env.em.chip.supports(VS[op], dtype):
        vec.flat(env.em, VS[op], {"dst": dst, "src": src}, n, scalar=env.info.scalar)
        return
    vec.check(env.em, BINARY[op], dtype)
    other = _loc(env.temps[0], dtype)
    vec.dup(env.em, other, n, env.info.scalar)
    vec.flat(env.em, BINARY[op], {"dst": dst, "src0": src, "src1": other}, n)


def _binary(env: NodeEnv) -> None:
    op, dtype, n = env.info.op, env.dtype, env.n
    a, b = env.args
    if isinstance(a, ConstArg) and isinstance(b, ConstArg):
        raise env.fail("both operands are constants")
    if _row_operand(env) is not None:
        _binary_row(env, op, dtype, _row_operand(env))
        return
    form = _vs_form(env.plan)
    if form is not None:
        opcode, sign, pos = form
        value = _const_of(env, 1 - pos)
        vec.flat(env.em, opcode, {"dst": _loc(env.out), "src": _loc(env.args[pos])}, n, scalar=sign * value)
        return
    locs = []
    for position, arg in enumerate((a, b)):
        if isinstance(arg, ConstArg):
            temp = _loc(env.temps[0], dtype)
            vec.dup(env.em, temp, n, _const_of(env, position))
            locs.append(temp)
        else:
            locs.append(_loc(arg))
    _binary_op(env, op, _loc(env.out), locs[0], locs[1], n)


def _row_operand(env: NodeEnv):
    """The position of an operand that holds one row read for every row (emit_broadcast.row_source), or None."""
    from te_compat.schedule.emit_broadcast import row_source
    p = env.plan
    for position, operand in enumerate(p.info.operands):
        if not operand.is_const and row_source(p.an, operand.node):
            return position
    return None


def _binary_row(env: NodeEnv, op: str, dtype: str, row_position: int) -> None:
    """dst row r = op(a row r, b row r) where the row operand supplies row 0 for every r (row stride 0)."""
    if not env.em.chip.supports(BINARY[op], dtype):
        raise env.fail(f"{BINARY[op]} does not support {dtype} on {env.em.chip.name}")
    lo = env.plan.layout
    if not lo.has_c:
        raise env.fail("a row operand in a tile without the last axis")
    roles = ("src0", "src1")
    locs = {"dst": _loc(env.out), "src0": _loc(env.args[0]), "src1": _loc(env.args[1])}
    strides = {"dst": lo.pitch, **{roles[k]: (0 if k == row_position else lo.pitch) for k in (0, 1)}}
    vec.rows(env.em, BINARY[op], locs, strides, lo.rows, lo.pitch)


def _binary_op(env: NodeEnv, op: str, dst: Loc, a: Loc, b: Loc, n: int) -> None:
    dtype = dst.dt
    if _div_by_reciprocal(env.em.chip, op, dtype):
        recip = _loc(env.temps[-1], dtype)
        vec.flat(env.em, "vrec", {"dst": recip, "src": b}, n)
        vec.flat(env.em, "vmul", {"dst": dst, "src0": a, "src1": recip}, n)
        return
    if op in BITWISE:
        vec.check(env.em, BINARY[op], "uint16")
        n16 = ceil_div(n * itemsize(dtype), 2)
        vec.flat(env.em, BINARY[op], {"dst": dst.as_dtype("uint16"), "src0": a.as_dtype("uint16"),
                                       "src1": b.as_dtype("uint16")}, n16)
        return
    if not env.em.chip.supports(BINARY[op], dtype):
        raise env.fail(f"{BINARY[op]} does not support {dtype} on {env.em.chip.name}")
    vec.flat(env.em, BINARY[op], {"dst": dst, "src0": a, "src1": b}, n)


def _init_from(env: NodeEnv, dst: Loc, position: int, n: int) -> None:
    """dst = operand ``position`` (a copy unless it already is that buffer)."""
    arg = env.args[position]
    if isinstance(arg, ConstArg):
        vec.dup(env.em, dst, n, _const_of(env, position))
    elif not same_buffer(arg, env.out):
        vec.copy(env.em, dst, _loc(arg), n * itemsize(dst.dt))


def _axpy(env: NodeEnv) -> None:
    dtype, n = env.dtype, env.n
    vec.check(env.em, "vaxpy", dtype)
    dst = _loc(env.out)
    _init_from(env, dst, 1, n)
    vec.flat(env.em, "vaxpy", {"dst": dst, "src": _loc(env.args[0])}, n, scalar=env.info.scalar)


def _fma(env: NodeEnv) -> None:
    dtype, n = env.dtype, env.n
    vec.check(env.em, "vmla", dtype)
    dst = _loc(env.out)
    factors, temp_index = [], 0
    for position in (0, 1):
        if isinstance(env.args[position], ConstArg):
            temp = _loc(env.temps[temp_index], dtype)
            temp_index += 1
            vec.dup(env.em, temp, n, _const_of(env, position))
            factors.append(temp)
        else:
            factors.append(_loc(env.args[position]))
    _init_from(env, dst, 2, n)
    vec.flat(env.em, "vmla", {"dst": dst, "src0": factors[0], "src1": factors[1]}, n)
    if env.info.op == "fma_relu":
        if env.em.chip.supports("vrelu", dtype):
            vec.flat(env.em, "vrelu", {"dst": dst, "src": dst}, n)
        else:
            vec.check(env.em, "vmaxs", dtype)
            vec.flat(env.em, "vmaxs", {"dst": dst, "src": dst}, n, scalar=0)
