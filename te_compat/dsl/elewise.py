"""Element-wise unary and binary DSL functions (tags ``elewise_single_<op>`` / ``elewise_binary_<op>``).

Each function auto-casts its inputs to a dtype the chip's instruction supports (see :func:`cast.compute_dtype`)
and keeps that dtype in its result, as TBE does; op code casts back with ``cast_to`` itself.
"""
from __future__ import annotations

from tvm import te

from te_compat.graph import binary_tag, scalar_tag, unary_tag
from te_compat.dsl.cast import autocast
from te_compat.dsl.checks import const, require_same_shape, require_tensor, static_shape
from te_compat.dsl.nodes import make_node
from te_compat.dsl.support import instr_supports, vrec_newton_steps


def _unary(func: str, raw_tensor, op: str, opcode: str, body):
    x = require_tensor(func, raw_tensor)
    shape = static_shape(func, x)
    dtype, (x,) = autocast(func, (opcode,), x)
    return make_node(shape, lambda *i: body(x(*i), dtype), unary_tag(op), prefix=op)


def vabs(raw_tensor):
    """|x| (instruction vabs)."""
    return _unary("vabs", raw_tensor, "abs", "vabs", lambda v, d: te.abs(v))


def vexp(raw_tensor):
    """e**x (instruction vexp)."""
    return _unary("vexp", raw_tensor, "exp", "vexp", lambda v, d: te.exp(v))


def vlog(raw_tensor, priority_flag=0):
    """ln(x) (instruction vln).  ``priority_flag`` is accepted; the result is always the vln instruction's (on a
    chip without float32 vln a float32 input is computed in float16, TBE's performance path)."""
    return _unary("vlog", raw_tensor, "log", "vln", lambda v, d: te.log(v))


def vsqrt(raw_tensor, priority_flag=0, impl_mode=None):
    """sqrt(x) (instruction vsqrt); ``priority_flag`` / ``impl_mode`` are accepted and do not change the result."""
    return _unary("vsqrt", raw_tensor, "sqrt", "vsqrt", lambda v, d: te.sqrt(v))


def vrsqrt(raw_tensor, priority_flag=0, impl_mode=None):
    """1/sqrt(x) (instruction vrsqrt); ``priority_flag`` / ``impl_mode`` are accepted."""
    return _unary("vrsqrt", raw_tensor, "rsqrt", "vrsqrt", lambda v, d: const(1, d) / te.sqrt(v))


def vrelu(raw_tensor):
    """max(x, 0) (instruction vrelu: float16 only on Ascend910/310, so float32 is computed in float16)."""
    return _unary("vrelu", raw_tensor, "relu", "vrelu", lambda v, d: te.max(v, const(0, d)))


def vnot(raw_tensor):
    """Bitwise not (instruction vnot: int16/uint16)."""
    return _unary("vnot", raw_tensor, "not", "vnot", lambda v, d: ~v)


def _reciprocal_nodes(x, dtype: str):
    """1/x as TBE builds it: a rec node, then Newton steps r = r * (2 - x*r) (2 on cloud chips, 1 on mini)."""
    shape = static_shape("vrec", x)
    rec = make_node(shape, lambda *i: const(1, dtype) / x(*i), unary_tag("rec"), prefix="rec")
    for _ in range(vrec_newton_steps()):
        prev = rec
        prod = make_node(shape, lambda *i: x(*i) * prev(*i), binary_tag("mul"), prefix="rec")
        neg = make_node(shape, lambda *i: prod(*i) * const(-1, dtype), scalar_tag("mul"), {"scalar": -1.0},
                        prefix="rec")
        plus = make_node(shape, lambda *i: neg(*i) + const(2, dtype), scalar_tag("add"), {"scalar": 2.0},
                         prefix="rec")
        rec = make_node(shape, lambda *i: plus(*i) * prev(*i), binary_tag("mul"), prefix="rec")
    return rec


def vrec(raw_tensor, priority_flag=1):
    """1/x: the vrec instruction refined by Newton steps (2 on cloud chips, 1 on Ascend310), as TBE builds it."""
    x = require_tensor("vrec", raw_tensor)
    static_shape("vrec", x)
    dtype, (x,) = autocast("vrec", ("vrec",), x)
    return _reciprocal_nodes(x, dtype)


def _binary(func: str, lhs, rhs, op: str, opcodes: tuple, body):
    lhs = require_tensor(func, lhs, "first input")
    rhs = require_tensor(func, rhs, "second input")
    shape = require_same_shape(func, (lhs, rhs), ["lhs", "rhs"])
    _, (lhs, rhs) = autocast(func, opcodes, lhs, rhs)
    return make_node(shape, lambda *i: body(lhs(*i), rhs(*i)), binary_tag(op), prefix=op, operands=[lhs, rhs])


def vadd(lhs, rhs):
    """lhs + rhs (same shapes)."""
    return _binary("vadd", lhs, rhs, "add", ("vadd",), lambda a, b: a + b)


def vsub(lhs, rhs):
    """lhs - rhs (same shapes)."""
    return _binary("vsub", lhs, rhs, "sub", ("vsub",), lambda a, b: a - b)


def vmul(lhs, rhs):
    """lhs * rhs (same shapes)."""
    return _binary("vmul", lhs, rhs, "mul", ("vmul",), lambda a, b: a * b)


def vmax(lhs, rhs):
    """max(lhs, rhs) (same shapes)."""
    return _binary("vmax", lhs, rhs, "max", ("vmax",), te.max)


def vmin(lhs, rhs):
    """min(lhs, rhs) (same shapes)."""
    return _binary("vmin", lhs, rhs, "min", ("vmin",), te.min)


def vand(lhs, rhs):
    """Bitwise and (instruction vand: int16/uint16)."""
    return _binary("vand", lhs, rhs, "and", ("vand",), lambda a, b: a & b)


def vor(lhs, rhs):
    """Bitwise or (instruction vor: int16/uint16)."""
    return _binary("vor", lhs, rhs, "or", ("vor",), lambda a, b: a | b)


def vdiv(lhs, rhs):
    """lhs / rhs.  On a chip without a vdiv instruction (Ascend310): lhs * vrec(rhs), built from nodes."""
    if any(instr_supports("vdiv", d) for d in ("float16", "float32")):
        return _binary("vdiv", lhs, rhs, "div", ("vdiv",), lambda a, b: a / b)
    lhs = require_tensor("vdiv", lhs, "first input")
    rhs = require_tensor("vdiv", rhs, "second input")
    shape = require_same_shape("vdiv", (lhs, rhs), ["lhs", "rhs"])
    dtype, (lhs, rhs) = autocast("vdiv", ("vrec", "vmul"), lhs, rhs)
    rec = _reciprocal_nodes(rhs, dtype)
    return make_node(shape, lambda *i: lhs(*i) * rec(*i), binary_tag("mul"), prefix="div", operands=[lhs, rec])

