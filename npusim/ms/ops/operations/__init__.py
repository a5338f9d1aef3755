"""``mindspore.ops.operations`` (``import mindspore.ops.operations as P``)."""
from npusim.frontend.math_ops import (  # noqa: F401
    Add, Sub, Mul, RealDiv, Div, Neg, Square, Exp, Log, Sqrt, Pow, Abs, ReduceSum, ReduceMean, MatMul, BatchMatMul,
)
from npusim.frontend.array_ops import (  # noqa: F401
    Reshape, Cast, Transpose, ZerosLike, OnesLike, Zeros, Ones, Fill, ExpandDims, Squeeze,
)
from npusim.custom.custom import Custom  # noqa: F401

TensorAdd = Add
