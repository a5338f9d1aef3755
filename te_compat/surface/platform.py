"""SoC queries of TBE op files: ``get_soc_spec``, ``te_set_version``, ``api_check_support``, ``intrinsic_check_support``.

Served as ``te.platform.cce_conf``, ``te.platform``, ``tbe.common.platform`` (+ ``platform_info``) and used by
``impl.util.platform_adapter.tbe_platform``.  These are API edges: they read the current runtime's target
(:func:`npusim.sim.current_target`).  ``te_set_version`` / ``set_current_compile_soc_info`` select the default
target's chip (:func:`npusim.sim.set_chip`) and its core type and AI-core count
(:func:`npusim.sim.runtime.set_default_cores`): kernels built afterwards use that many cores, and ``get_soc_spec``
reports them ("AICORE_TYPE", "CORE_NUM"), as in CANN.  A runtime activated around an op build (a Custom tbe op)
keeps its own target.
"""
from __future__ import annotations

from npusim.errors import ChipModelError, InvalidOperandError, TbeArgumentError, UnknownChipError
from npusim.sim.target import CORE_TYPES
# CANN 2020 CceProductParams keys that are soc-spec values
_PRODUCT_PARAM_KEYS = {"Core_num": "CORE_NUM", "Unified_Buffer": "UB_SIZE", "L1_Buffer": "L1_SIZE",
                       "L0A_Buffer": "L0A_SIZE", "L0B_Buffer": "L0B_SIZE", "L0C_Buffer": "L0C_SIZE",
                       "L2_Buffer": "L2_SIZE"}


def _target():
    from npusim.sim.runtime import current_target
    return current_target()


def _chip():
    return _target().chip


def te_set_version(soc_version, core_type=None, aicore_num=None, l1_fusion=None, l2_mode=None, l2_fusion=None,
                   *args, **kwargs):
    """Select the chip ``soc_version`` ("Ascend910", "Ascend310", "Ascend910B" ...) for the ops built from now on.

    ``core_type`` ("AiCore"/"VectorCore") and ``aicore_num`` (1 ... the chip's core count) limit the cores kernels
    use and change what get_soc_spec reports; l1/l2 fusion switches are accepted (npusim does not fuse across
    ops)."""
    del l1_fusion, l2_mode, l2_fusion, args, kwargs
    from npusim.sim.runtime import get_chip, set_chip, set_default_cores
    try:
        chip = get_chip(soc_version)
    except UnknownChipError as exc:
        raise TbeArgumentError(f"te_set_version: {exc}") from None
    if core_type not in (None, "") and core_type not in CORE_TYPES:
        raise TbeArgumentError(f"te_set_version: core_type must be one of {CORE_TYPES}, got {core_type!r}")
    if aicore_num not in (None, "", 0):
        count = int(aicore_num)
        if not 1 <= count <= chip.aicore_num:
            raise TbeArgumentError(f"te_set_version: aicore_num {aicore_num} is outside 1..{chip.aicore_num} "
                                   f"(the number of AI cores of {chip.name})")
        aicore_num = count
    set_chip(soc_version)
    set_default_cores(aicore_num or None, core_type or None)


def set_current_compile_soc_info(soc_version, core_type="AiCore", aicore_num=None, l1_fusion=None, *args,
                                 **kwargs):
    """``tbe.common.platform.set_current_compile_soc_info``: same as :func:`te_set_version`."""
    te_set_version(soc_version, core_type, aicore_num, l1_fusion, *args, **kwargs)
    return "success"


def get_soc_spec(key: str):
    """The chip's value for ``key``: SOC_VERSION, SHORT_SOC_VERSION, FULL_SOC_VERSION, AICORE_TYPE, CORE_NUM,
    UB_SIZE, L1_SIZE, L2_SIZE, L0A_SIZE, L0B_SIZE, L0C_SIZE, CUBE_SIZE, CUBE_CORE_CNT, VECTOR_CORE_CNT."""
    target = _target()
    chip = target.chip
    if key == "FULL_SOC_VERSION":
        return chip.name
    if key == "CORE_NUM":  # the target's core limit: never more than its chip has
        return target.core_num
    if key == "AICORE_TYPE":
        return target.core_type
    try:
        return chip.soc_spec(key)
    except ChipModelError as exc:
        raise TbeArgumentError(f"get_soc_spec on {chip.name}: {exc}") from None


def api_check_support(api_name: str, dtype: str = "") -> bool:
    """Whether the DSL function ``api_name`` ("te.lang.cce.vexp", "tbe.dsl.vexp") supports ``dtype`` on the chip;
    for "tik.<instruction>" names, whether the chip runs that TIK instruction with ``dtype``."""
    if str(api_name).startswith("tik."):
        from te_compat.tik.platform import tik_api_check_support
        return tik_api_check_support(_chip(), api_name, dtype)
    from te_compat.dsl.support import api_check_support as dsl_api_check_support
    return bool(dsl_api_check_support(api_name, dtype))


def _isa_opcode(chip, intrinsic: str):
    name = intrinsic[len("Intrinsic_"):] if intrinsic.startswith("Intrinsic_") else intrinsic
    if name in chip.isa:
        return name
    base = name.split("_", 1)[0]  # e.g. "vcmpv_gt" -> "vcmpv"
    return base if base in chip.isa else None


def intrinsic_check_support(intrinsic: str, dtype: str = "") -> bool:
    """Whether the chip has instruction ``intrinsic`` ("Intrinsic_vexp", "Intrinsic_vconv" ...) for ``dtype``
    (a dtype name or a conversion key such as "f322f16"; empty: the instruction exists at all)."""
    chip = _chip()
    opcode = _isa_opcode(chip, str(intrinsic))
    if opcode is None:
        return False
    if not dtype:
        return True
    if chip.supports(opcode, dtype):
        return True
    from npusim.sim.dtypes import canonical_dtype
    try:
        return chip.supports(opcode, canonical_dtype(dtype))
    except InvalidOperandError:  # not a dtype name (e.g. an unknown conversion key): unsupported
        return False


def get_product_version() -> str:
    """CANN 2020 product name of the chip (its ``identity.product_2020``): "cloud" (Ascend910 family) or "mini"
    (Ascend310)."""
    chip = _chip()
    if chip.product_2020 is None:
        raise TbeArgumentError(f"get_product_version: {chip.name} has no 2020 product name "
                               f"(cloud = Ascend910, mini = Ascend310)")
    return chip.product_2020


def get_product_param(key: str):
    """CANN 2020 ``CceProductParams().getParams(key)``: an intrinsic's supported keys or a buffer size/core count."""
    chip = _chip()
    if key in _PRODUCT_PARAM_KEYS:
        return get_soc_spec(_PRODUCT_PARAM_KEYS[key])
    opcode = _isa_opcode(chip, key) if key.startswith("Intrinsic_") else None
    if opcode is not None:
        return sorted(chip.isa[opcode])
    if key.startswith("Intrinsic_"):
        return []
    raise TbeArgumentError(f"CceProductParams.getParams: unknown key {key!r}; known: "
                           f"{', '.join(sorted(_PRODUCT_PARAM_KEYS))} and Intrinsic_<instruction>")


class CceProductParams:
    """CANN 2020 product parameter table (read-only view of the current chip)."""

    def getParams(self, key: str):  # noqa: N802  (CANN's name)
        return get_product_param(key)


def get_soc_info() -> tuple:
    """(soc_version, core_type, aicore_num, l1_fusion) of the current compile settings (npusim keeps no L1
    fusion setting: always None)."""
    target = _target()
    return target.name, target.core_type, target.core_num, None


def get_bit_len(dtype: str) -> int:
    """Bits of one element of ``dtype`` ("float16" -> 16, "bool" -> 8)."""
    from npusim.sim.dtypes import canonical_dtype, itemsize
    try:
        return 8 * itemsize(canonical_dtype(dtype))
    except InvalidOperandError as exc:
        raise TbeArgumentError(f"get_bit_len: unknown dtype {dtype!r}") from exc


def get_block_size() -> int:
    """Bytes of one UB block (32 on every modelled chip)."""
    return int(_chip().block_bytes)


def get_align_factor(dtype: str) -> tuple:
    """(elements per block, bytes per element) of ``dtype``."""
    byte_len = get_bit_len(dtype) // 8
    return get_block_size() // byte_len, byte_len


__all__ = ["CORE_TYPES", "CceProductParams", "api_check_support",
           "get_align_factor", "get_bit_len", "get_block_size", "get_product_param", "get_product_version",
           "get_soc_info", "get_soc_spec", "intrinsic_check_support", "set_current_compile_soc_info",
           "te_set_version"]
