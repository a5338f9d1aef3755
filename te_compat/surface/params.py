"""``te.platform.cce_params``: scope names and the vector/cube geometry constants op files import.

The numbers come from npusim's default chip model (every modelled chip has the same 32-byte blocks, 256-byte
vector repeats and 16x16x16 fp16 cube fractal); the SoC name constants are CANN's spellings.
"""
from __future__ import annotations

from npusim.sim import get_chip

_CHIP = get_chip()  # the default chip's geometry (identical on every chip npusim models)

scope_cbuf = "local.L1"
scope_ubuf = "local.UB"
scope_ca = "local.L0A"
scope_cb = "local.L0B"
scope_cc = "local.L0C"
scope_reg = "local.REG"
scope_vreg = "local.VREG"
scope_preg = "local.PREG"
scope_areg = "local.AREG"
scope_ureg = "local.UREG"
scope_wreg = "local.WREG"
scope_aicpu = "local_aicpu"
scope_gm = "global"
scope_cbuf_fusion = "local.L1_Fusion"
scope_smask = "local.SMASK"
dma_copy = "dma_copy"
dma_copy_global = "global"

VECTOR_INST_BLOCK_WIDTH = _CHIP.block_bytes
VECTOR_INST_BLOCK_NUM = _CHIP.vector_width_bytes // _CHIP.block_bytes
VECTOR_INST_MAX_REPEAT_TIMES = _CHIP.max_repeat
ELEMENTS_VECTOR_OP_FP16 = _CHIP.vector_width_bytes // 2
BLOCK_IN = _CHIP.cube_m
BLOCK_OUT = _CHIP.cube_n
BLOCK_REDUCE = _CHIP.cube_k_fp16
BLOCK_REDUCE_INT8 = _CHIP.block_bytes
BLOCK_VECTOR = 0
C0_SIZE = _CHIP.cube_k_fp16
GEMM_MODE = "gemm"
CONV_MODE = "conv"
#: fractal (m, k, n) per dtype: k fills one 32-byte block of the dtype
CUBE_MKN = {dtype: {"mac": [_CHIP.cube_m, _CHIP.block_bytes // size, _CHIP.cube_n]}
            for dtype, size in (("int8", 1), ("uint8", 1), ("float16", 2), ("float32", 4), ("int32", 4))}

SOC_VERSION = "SOC_VERSION"
SHORT_SOC_VERSION = "SHORT_SOC_VERSION"
FULL_SOC_VERSION = "FULL_SOC_VERSION"
AICORE_TYPE = "AICORE_TYPE"
CORE_NUM = "CORE_NUM"
UB_SIZE = "UB_SIZE"
L1_SIZE = "L1_SIZE"
L2_SIZE = "L2_SIZE"
L0A_SIZE = "L0A_SIZE"
L0B_SIZE = "L0B_SIZE"
L0C_SIZE = "L0C_SIZE"
CUBE_SIZE = "CUBE_SIZE"
ASCEND_310 = "Ascend310"
ASCEND_310P = "Ascend310P"
ASCEND_610 = "Ascend610"
ASCEND_910 = "Ascend910"
ASCEND_910B = "Ascend910B"
ASCEND_910H = "Ascend910H"
ASCEND_910M = "Ascend910M"
ASCEND_910P = "Ascend910P"
HI3796CV300ES = "Hi3796CV300ES"
HI3796CV300CS = "Hi3796CV300CS"
SD3403 = "SD3403"
AIC = "AiCore"
VEC = "VectorCore"

__all__ = [name for name in dict(globals()) if not name.startswith("_") and name not in ("annotations", "get_chip")]
