"""``mindspore.ops.op_info_register``."""
from npusim.custom.reg_info import (  # noqa: F401
    CustomRegOp, DataType, custom_info_register, TBERegOp, AiCPURegOp, AkgGpuRegOp, AkgAscendRegOp, AkgCpuRegOp,
)
