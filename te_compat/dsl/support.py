"""Which instructions and dtypes the current chip supports, as the DSL and CANN's ``api_check_support`` see them.

Everything is read from the ``isa:`` table of the current runtime's chip (``npusim.sim.current_chip()``): these are
API edges, called by the DSL functions an op file calls.  Switching the chip with ``npusim.sim.set_chip`` (or
``NPUSIM_SOC``, or ``use_target`` / an op build's runtime) changes every answer here and every auto-cast decision.
"""
from __future__ import annotations

from npusim.sim.runtime import current_chip

STANDARD_DTYPES = frozenset({"float16", "float32", "int8", "uint8", "int16", "uint16", "int32", "uint32"})
_CAST_SOURCES = frozenset({"float16", "float32", "int8", "uint8", "int32"})

# DSL API name -> the instructions every supported dtype needs (all of them).
_API_OPCODES = {
    "vadd": ("vadd",), "vsub": ("vsub",), "vmul": ("vmul",), "vmax": ("vmax",), "vmin": ("vmin",),
    "vand": ("vand",), "vor": ("vor",), "vnot": ("vnot",), "vabs": ("vabs",), "vexp": ("vexp",),
    "vlog": ("vln",), "vrec": ("vrec",), "vsqrt": ("vsqrt",), "vrsqrt": ("vrsqrt",), "vrelu": ("vrelu",),
    "vadds": ("vadds",), "vmuls": ("vmuls",), "vmaxs": ("vmaxs",), "vmins": ("vmins",), "vaxpy": ("vaxpy",),
    "vmla": ("vmla",), "vmadd": ("vmla",), "vmaddrelu": ("vmla",), "vcmp": ("vcmpv",), "vcmpsel": ("vcmpv", "vsel"),
    "vsel": ("vsel",), "vlrelu": ("vmuls", "vmax"), "vaddrelu": ("vadd", "vmaxs"), "vsubrelu": ("vsub", "vmaxs"),
    "broadcast": ("vector_dup",), "sum": ("vcadd",), "reduce_sum": ("vcadd",), "tuple_sum": ("vcadd",),
    "reduce_max": ("vmax",), "reduce_min": ("vmin",), "reduce_prod": ("vmul",), "clip": ("vmaxs", "vmins"),
    "round_to": ("vmaxs", "vmins"),
}
_DATA_MOVE_APIS = ("concat", "split", "split_compute_com", "transpose", "gather", "gather_nd", "slice", "set_value",
                   "inplace_add", "inplace_sub", "inplace_update", "unsorted_segment_sum", "unsorted_segment_mean",
                   "unsorted_segment_prod", "unsorted_segment_min", "unsorted_segment_max")
_CAST_APIS = ("cast_to", "floor", "ceil", "round", "round_d", "round_half_up", "trunc", "cast_to_round")


#: TBE checks these instructions' dtypes against another instruction when the chip's intrinsic table does not list
#: the dtype for them: CANN's ``_intrinsic_check`` (te.lang.cce te_compute/elewise_compute.py) maps vmaxs -> vmax
#: and vmins -> vmin (the 2019 "cloud"/"mini" tables have no Intrinsic_vmaxs/vmins at all), and the schedule then
#: emits vector_dup + vmax/vmin.  So int32 ``vmaxs`` stays int32 on Ascend910/310 (CANN's Relu6 int32 relies on it).
#: On Ascend910B1/310P3 vmaxs/vmins list every dtype vmax/vmin do (CANN's Ascend910B1.ini / Ascend310P3.ini), so
#: the rule gives the same answer as CANN's on all four chips.
TBE_FALLBACK_OPCODES = {"vmaxs": "vmax", "vmins": "vmin"}


def instr_supports(opcode: str, dtype: str) -> bool:
    """Whether the current chip's ``opcode`` accepts ``dtype`` (or a vconv key such as "f162s32r")."""
    return current_chip().supports(opcode, str(dtype))


def dsl_supports(opcode: str, dtype: str) -> bool:
    """Whether a DSL function built on ``opcode`` computes ``dtype`` natively on the current chip (no auto-cast):
    the instruction accepts it, or TBE's fallback instruction does (:data:`TBE_FALLBACK_OPCODES`)."""
    chip = current_chip()
    fallback = TBE_FALLBACK_OPCODES.get(opcode)
    return chip.supports(opcode, str(dtype)) or (fallback is not None and chip.supports(fallback, str(dtype)))


def chip_name() -> str:
    """The current chip's name (for messages)."""
    return current_chip().name


def vrec_newton_steps() -> int:
    """Newton steps TBE's vrec adds after the vrec instruction on the current chip (its ``dsl.vrec_newton_steps``:
    2 on cloud chips, 1 on the Ascend 310)."""
    return current_chip().vrec_newton_steps


def supported_dtypes(opcode: str) -> tuple:
    """The dtypes a DSL function built on ``opcode`` computes natively on the current chip, sorted (for messages;
    with TBE's fallback instruction's dtypes, see :func:`dsl_supports`)."""
    isa = current_chip().isa
    dtypes = set(isa.get(opcode, ())) | set(isa.get(TBE_FALLBACK_OPCODES.get(opcode, ""), ()))
    return tuple(sorted(dtypes))


def _api_short_name(name: str) -> str:
    return str(name).rsplit(".", 1)[-1]


def _vdiv_supports(dtype: str) -> bool:
    if current_chip().isa.get("vdiv"):
        return instr_supports("vdiv", dtype)
    return instr_supports("vrec", dtype) and instr_supports("vmul", dtype)


def _vmod_supports(dtype: str) -> bool:
    if instr_supports("vdiv", "float32") or instr_supports("vconv", "f322s32f"):
        return dtype in ("float16", "float32")
    return dtype == "float16"


def _cast_api_supports(short: str, dtype: str) -> bool:
    if dtype not in STANDARD_DTYPES and dtype != "bool":
        return instr_supports("vconv", dtype)  # a vconv key such as "f322s32f" or "deq"
    if short == "cast_to":
        return dtype in _CAST_SOURCES
    return dtype in ("float16", "float32")


def api_check_support(name: str, dtype: str = "") -> bool:
    """CANN's ``api_check_support(api_name, dtype)``: whether the DSL API handles ``dtype`` natively on this chip.

    ``name`` may be "te.lang.cce.vexp", "tbe.dsl.vexp" or the bare "vexp".  With ``dtype`` "" the answer is whether
    the API exists.  For cast APIs ``dtype`` may also be a vconv key such as "f322s32f".  A dtype the API would
    auto-cast (e.g. float32 for vexp on Ascend310) is reported unsupported, as CANN does.  Unknown APIs: False.
    """
    short = _api_short_name(name)
    dtype = str(dtype).lower()
    known = short in _API_OPCODES or short in _DATA_MOVE_APIS or short in _CAST_APIS or short in (
        "vdiv", "vmod", "vlogic")
    if not known or not dtype:
        return known
    if short in _CAST_APIS:
        return _cast_api_supports(short, dtype)
    if short == "vdiv":
        return _vdiv_supports(dtype)
    if short == "vmod":
        return _vmod_supports(dtype)
    if short == "vlogic":
        return dtype == "bool"
    if short in _DATA_MOVE_APIS:
        return dtype in STANDARD_DTYPES
    return all(dsl_supports(opcode, dtype) for opcode in _API_OPCODES[short])
