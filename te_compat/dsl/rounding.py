"""cast_to and the float -> int32 rounding functions floor, ceil, round (half-even), round_d (half away), trunc.

Each rounding function is one ``elewise_single_<name>`` vconv node (f162s32f, f322s32c ...) when the chip has that
step.  Without a float32 step (Ascend310) the input goes to float16 first, as TBE does.  Without the mode at all
(Ascend310 has no "a"/"z" modes) trunc and round_d are composed as TBE composes them: sign(x) * floor(|x|) and
sign(x) * floor(|x| + 0.5), where sign comes from round(clip(x, -0.5, 0.5) * big / (|...| + tiny)).

cast_to(x, dtype) converts: float -> int32 truncates (like C); float -> int8/uint8 truncates through float16
(``f1628IntegerFlag=True`` promises integral data, so Ascend310's mode-less f162s8 step is exact); int32 ->
int8/uint8 wraps; everything else is a value conversion through the chains listed in :mod:`te_compat.dsl.cast`.
"""
from __future__ import annotations

from npusim.errors import TbeArgumentError

from te_compat.dsl.cast import cast_step, convert, step_supported, wrap_int
from te_compat.dsl.checks import FLOAT_DTYPES, dtype_of, normalize_dtype, require_tensor, static_shape

_TAGS = {"f": "elewise_single_floor", "c": "elewise_single_ceil", "r": "elewise_single_round",
         "a": "elewise_single_round_d", "z": "elewise_single_trunc"}
_SIGN_CONSTANTS = {"float16": (32768.0, 2.0 ** -15, 1024.0), "float32": (2.0 ** 31, 2.0 ** -31, 2.0 ** 23)}


def to_int32(func: str, x, mode: str, tag: str | None = None):
    """float16/float32 ``x`` rounded with vconv ``mode`` to int32 (one step, or TBE's fallbacks)."""
    x = require_tensor(func, x)
    static_shape(func, x)
    src = dtype_of(x)
    if src not in FLOAT_DTYPES:
        raise TbeArgumentError(f"{func}: the input must be float16 or float32, got {src}")
    tag = tag or _TAGS[mode]
    if step_supported(src, "int32", mode):
        return cast_step(x, "int32", mode, tag, func)
    if src == "float32" and not any(step_supported("float32", "int32", m) for m in "rafcz"):
        return to_int32(func, convert(func, x, "float16"), mode, tag)
    if mode in ("z", "a"):
        return _sign_magnitude(func, x, mode)
    raise TbeArgumentError(f"{func}: the chip has no vconv {src} -> int32 with rounding mode {mode!r}")


def _sign_magnitude(func: str, x, mode: str):
    """trunc ("z") or round half away ("a") as sign(x) * floor(|x| [+ 0.5]) from floor/round steps."""
    from te_compat.dsl.cmpsel import vcmpsel
    from te_compat.dsl.elewise import vabs, vmul, vrec
    from te_compat.dsl.scalar import vadds, vmaxs, vmins, vmuls
    big, tiny, integral_from = _SIGN_CONSTANTS[dtype_of(x)]
    scaled = vmuls(vmins(vmaxs(x, -0.5), 0.5), big)
    ratio = vmul(scaled, vrec(vadds(vabs(scaled), tiny)))
    sign = to_int32(func, ratio, "r")
    magnitude = vabs(x)
    if mode == "a":
        # |x| >= integral_from is already integral (adding 0.5 there would round to even): keep it as it is.
        magnitude = vcmpsel(magnitude, integral_from, "ge", magnitude, vadds(magnitude, 0.5))
    return vmul(to_int32(func, magnitude, "f"), sign)


def floor(raw_tensor):
    """The largest integer <= x, as int32."""
    return to_int32("floor", raw_tensor, "f")


def ceil(raw_tensor):
    """The smallest integer >= x, as int32."""
    return to_int32("ceil", raw_tensor, "c")


def round(raw_tensor):  # noqa: A001  (TBE's name)
    """x rounded half to even, as int32."""
    return to_int32("round", raw_tensor, "r")


def round_d(raw_tensor):
    """x rounded half away from zero, as int32."""
    return to_int32("round_d", raw_tensor, "a")


def round_half_up(raw_tensor):
    """tbe.dsl's name of :func:`round_d`."""
    return to_int32("round_half_up", raw_tensor, "a")


def trunc(raw_tensor):
    """x rounded toward zero, as int32."""
    return to_int32("trunc", raw_tensor, "z")


def _float_to_small_int(func: str, x, dst: str, integral: bool):
    x = convert(func, x, "float16")
    if step_supported("float16", dst, "z"):
        return cast_step(x, dst, "z", func=func)
    if not integral:
        x = convert(func, to_int32(func, x, "z"), "float16")
    return cast_step(x, dst, "none", func=func)


def cast_to(data, dtype, f1628IntegerFlag=True):  # noqa: N803  (TBE's parameter name)
    """``data`` converted to ``dtype`` (float -> int truncates; int32 -> int8/uint8 wraps)."""
    func = "cast_to"
    x = require_tensor(func, data, "data")
    static_shape(func, x)
    dst = normalize_dtype(func, dtype)
    src = dtype_of(x)
    if src == dst:
        return x
    if dst == "bool":
        raise TbeArgumentError(f"{func}: casting to bool is not supported; compare with vcmp instead")
    if src in FLOAT_DTYPES and dst == "int32":
        return to_int32(func, x, "z", "elewise_single_cast")
    if src in FLOAT_DTYPES and dst in ("int8", "uint8"):
        return _float_to_small_int(func, x, dst, bool(f1628IntegerFlag))
    if src == "int32" and dst in ("int8", "uint8", "int16", "uint16"):
        return wrap_int(func, x, dst)
    return convert(func, x, dst)


def cast_to_round(data, dtype):
    """round(data) (half to even) converted to ``dtype``."""
    return cast_to(round(data), dtype)
