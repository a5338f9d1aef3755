"""SoC queries TIK kernels make: ``tik.Dprofile`` and ``api_check_support("tik.<instruction>", dtype)``.

``set_current_compile_soc_info`` / ``get_soc_spec`` / ``get_bit_len`` are the TBE DSL's
(:mod:`te_compat.surface.platform`), re-exported by ``tbe.common.platform`` / ``te.platform.cce_conf``.
"""
from __future__ import annotations

from te_compat.surface.platform import get_soc_spec

#: TIK instruction name -> the ISA row whose dtype list answers api_check_support
_NEW_FORM = {"vec_dup": "vector_dup", "vec_conv": "vconv", "vec_sel": "vsel", "vec_reduce_add": "vcadd",
             "vec_reduce_max": "vcmax", "vec_reduce_min": "vcmin", "vec_trans_scatter": "vnchwconv"}
#: TIK cube APIs -> the move path they need (the cube's L1 -> L0A load), and the input dtype -> mmad's dtype keys
_CUBE_APIS = {"matmul", "fixpipe", "mmad", "load2dv1", "load3dv1"}
_MMAD_KEYS = {"float16": ("f162f32", "f162f16"), "int8": ("s8",), "uint8": ("u8", "u8s8")}


def _opcode(name: str) -> str:
    short = str(name).rsplit(".", 1)[-1]
    if short in _NEW_FORM:
        return _NEW_FORM[short]
    if short.startswith("vec_cmpv_") or short.startswith("vcmpv_"):
        return "vcmpv"
    if short.startswith("vcmp_"):
        return "vcmp"
    if short.startswith("vec_"):
        return "v" + short[len("vec_"):].replace("_high_preci", "")
    return short


def tik_api_check_support(chip, name: str, dtype: str = "") -> bool:
    """Whether ``chip`` runs TIK instruction ``name`` ("tik.vdiv", "tik.vec_add" ...) with ``dtype`` (a dtype
    name, or a vconv key such as "f322f16")."""
    from npusim.sim.dtypes import canonical_dtype
    opcode = _opcode(name)
    if opcode == "data_move":
        return True
    if opcode in _CUBE_APIS:
        if ("L1", "L0A") not in chip.paths or "mmad" not in chip.isa:
            return False
        if not dtype or opcode in ("load2dv1", "load3dv1"):
            return True
        return any(key in chip.isa["mmad"] for key in _MMAD_KEYS.get(str(dtype), (str(dtype),)))
    if opcode not in chip.isa:
        return False
    if not dtype:
        return True
    if chip.supports(opcode, str(dtype)):
        return True
    try:
        return chip.supports(opcode, canonical_dtype(str(dtype)))
    except Exception:  # noqa: BLE001  (not a dtype name: an unknown key is unsupported)
        return False


class Dprofile:
    """``tik.Dprofile(arch=None, version=None)``: the current SoC's core count and buffer sizes."""

    def __init__(self, arch=None, version=None):
        self.arch, self.version = arch, version

    def get_aicore_num(self) -> int:
        return int(get_soc_spec("CORE_NUM"))

    def get_unified_buffer_size(self) -> int:
        return int(get_soc_spec("UB_SIZE"))

    def get_l1_buffer_size(self) -> int:
        return int(get_soc_spec("L1_SIZE"))

    def get_l0a_buffer_size(self) -> int:
        return int(get_soc_spec("L0A_SIZE"))

    def get_l0b_buffer_size(self) -> int:
        return int(get_soc_spec("L0B_SIZE"))

    def get_l0c_buffer_size(self) -> int:
        return int(get_soc_spec("L0C_SIZE"))

    def get_product_name(self) -> str:
        return str(get_soc_spec("SOC_VERSION"))


__all__ = ["Dprofile", "tik_api_check_support"]
