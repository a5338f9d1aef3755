"""``mindspore.ops.operations`` (``import mindspore.ops.operations as P``)."""
from npusim.frontend.math_ops import (  # noqa: F401
    Add, Sub, Mul, RealDiv, Div, Neg, Square, Exp, Log, Sqrt, Pow, Abs, ReduceSum, ReduceMean, MatMul, BatchMatMul,
)
from npusim.frontend.array_ops import (  # noqa: F401
    Reshape, Cast, Transpose, ZerosLike, OnesLike, Zeros, Ones, Fill, ExpandDims, Squeeze,
)
from npusim.ms.ops.operations.nn_ops import (  # noqa: F401
    ReLU, ReLU6, Sigmoid, Tanh, Softmax, LogSoftmax, GeLU, FastGeLU, Elu, HSwish, HSigmoid, Softplus, Softsign,
    SeLU, Mish, SiLU,
)
from npusim.custom.custom import Custom  # noqa: F401

TensorAdd = Add
GELU = GeLU
FastGelu = FastGeLU
