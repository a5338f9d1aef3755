"""``mindspore.ops``: primitives, functional forms, Custom and its registration helpers, gradient transforms."""
from npusim.ms.ops.operations import *  # noqa: F401,F403
from npusim.ms.ops.functional import *  # noqa: F401,F403
from npusim.ms.ops.functional import abs, pow, sum  # noqa: F401,A004
from npusim.ms.ops import operations, functional, composite  # noqa: F401
from npusim.ms.ops.op_info_register import (  # noqa: F401  (op_info_register: the decorator, as in MindSpore)
    op_info_register, CustomRegOp, DataType, custom_info_register, TBERegOp, AiCPURegOp, AkgGpuRegOp, AkgAscendRegOp, AkgCpuRegOp,
)
from npusim.frontend.grad import GradOperation  # noqa: F401
from npusim.custom.user_primitive import Primitive, PrimitiveWithInfer, PrimitiveWithCheck  # noqa: F401
from npusim.ms.ops.builder import CustomOpBuilder  # noqa: F401
from npusim.ms.ops.primitive_helpers import prim_attr_register, constexpr  # noqa: F401

_HYBRID_NAMES = ("kernel", "ms_kernel", "ms_hybrid")


def __getattr__(name):
    # The hybrid DSL decorators load lazily so `import mindspore.ops` stays light.
    if name in _HYBRID_NAMES:
        import npusim.hybrid as hybrid
        return getattr(hybrid, name)
    raise AttributeError(f"module 'mindspore.ops' has no attribute {name!r}")
