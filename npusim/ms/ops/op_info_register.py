"""``mindspore.ops.op_info_register``: the registration builders and the ``op_info_register`` decorator."""
from npusim.custom.op_lib import op_info_register  # noqa: F401
from npusim.custom.reg_info import (  # noqa: F401
    CustomRegOp, DataType, custom_info_register, TBERegOp, AiCPURegOp, AkgGpuRegOp, AkgAscendRegOp, AkgCpuRegOp,
)
