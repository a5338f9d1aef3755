"""DSL functions with no instruction of their own, composed from tagged nodes as TBE composes them:
vlrelu, vaddrelu, vsubrelu, clip / round_to, vmod."""
from __future__ import annotations

from npusim.errors import TbeArgumentError

from te_compat.dsl.broadcast import broadcast_scalar
from te_compat.dsl.cast import autocast, convert, step_supported
from te_compat.dsl.checks import dtype_of, require_same_shape, require_tensor, scalar_value, static_shape
from te_compat.dsl.cmpsel import vcmpsel
from te_compat.dsl.elewise import vadd, vdiv, vmax, vmin, vmul, vrec, vsub
from te_compat.dsl.rounding import to_int32
from te_compat.dsl.scalar import vadds, vmaxs, vmins, vmuls
from te_compat.dsl.support import instr_supports


def vlrelu(raw_tensor, alpha=0):
    """Leaky relu: x for x >= 0, alpha * x otherwise; vmax(x, vmuls(x, alpha)) (vmin when alpha > 1)."""
    func = "vlrelu"
    x = require_tensor(func, raw_tensor)
    value = scalar_value(func, alpha, "alpha")
    static_shape(func, x)
    _, (x,) = autocast(func, ("vmuls", "vmax" if value <= 1 else "vmin"), x)
    scaled = vmuls(x, value)
    return vmax(x, scaled) if value <= 1 else vmin(x, scaled)


def _relu_keeping_dtype(x):
    """max(x, 0) in x's dtype: vmaxs where the chip has it for that dtype, else vmax with a broadcast 0."""
    dtype = dtype_of(x)
    if instr_supports("vmaxs", dtype) or not instr_supports("vmax", dtype):
        return vmaxs(x, 0)
    return vmax(x, broadcast_scalar(0, static_shape("vaddrelu", x), dtype))


def vaddrelu(lhs, rhs):
    """relu(lhs + rhs): vadd then max with 0 (keeps the dtype, e.g. int32; vrelu is float16-only)."""
    return _relu_keeping_dtype(vadd(lhs, rhs))


def vsubrelu(lhs, rhs):
    """relu(lhs - rhs): vsub then max with 0."""
    return _relu_keeping_dtype(vsub(lhs, rhs))


def clip(data, max_value, min_value):
    """``data`` limited to [min_value, max_value]: vmins(vmaxs(data, min_value), max_value)."""
    func = "clip"
    x = require_tensor(func, data, "data")
    high = scalar_value(func, max_value, "max_value")
    low = scalar_value(func, min_value, "min_value")
    if high < low:
        raise TbeArgumentError(f"{func}: max_value {high} is smaller than min_value {low}")
    return vmins(vmaxs(x, low), high)


def round_to(data, max_value, min_value):
    """te.lang.cce's name of :func:`clip`."""
    return clip(data, max_value, min_value)


def _vmod_cloud(lhs, rhs, dtype: str):
    """lhs - floor(lhs / rhs) * rhs computed in float32 with vdiv (or vrec) and a floor step."""
    lhs32 = convert("vmod", lhs, "float32")
    rhs32 = convert("vmod", rhs, "float32")
    quotient_floor = convert("vmod", to_int32("vmod", vdiv(lhs32, rhs32), "f"), "float32")
    return convert("vmod", vsub(lhs32, vmul(rhs32, quotient_floor)), dtype)


def _vmod_mini(lhs, rhs, dtype: str):
    """TBE's mini path: a float32 estimate through float16 floor, corrected by the sign of the remainder."""
    shape = static_shape("vmod", lhs)
    lhs32 = convert("vmod", lhs, "float32")
    rhs32 = convert("vmod", rhs, "float32")
    estimate = convert("vmod", vmul(lhs32, vrec(rhs32)), "float16")
    floor16 = convert("vmod", to_int32("vmod", estimate, "f"), "float16")
    remainder = convert("vmod", vsub(lhs32, vmul(rhs32, convert("vmod", floor16, "float32"))), "float16")
    zero = broadcast_scalar(0.0, shape, "float16")
    minus_one = vadds(floor16, -1.0)
    positive_rhs = vcmpsel(remainder, zero, "lt", minus_one, floor16)
    negative_rhs = vcmpsel(remainder, zero, "gt", minus_one, floor16)
    corrected = vcmpsel(convert("vmod", rhs, "float16"), zero, "gt", positive_rhs, negative_rhs)
    result = vsub(lhs32, vmul(rhs32, convert("vmod", corrected, "float32")))
    return convert("vmod", result, dtype)


def vmod(lhs, rhs):
    """lhs - floor(lhs / rhs) * rhs (float16 / float32; other dtypes are computed in float)."""
    func = "vmod"
    lhs = require_tensor(func, lhs, "first input")
    rhs = require_tensor(func, rhs, "second input")
    require_same_shape(func, (lhs, rhs), ["lhs", "rhs"])
    cloud = instr_supports("vdiv", "float32") or step_supported("float32", "int32", "f")
    if cloud:
        opcodes = ("vdiv",) if instr_supports("vdiv", "float32") else ("vrec", "vmul")
    else:
        opcodes = ("vcmpv", "vsel")
    dtype, (lhs, rhs) = autocast(func, opcodes, lhs, rhs)
    if dtype not in ("float16", "float32"):
        raise TbeArgumentError(f"{func}: dtype {dtype_of(lhs)} is not supported (float16, float32)")
    return _vmod_cloud(lhs, rhs, dtype) if cloud else _vmod_mini(lhs, rhs, dtype)
