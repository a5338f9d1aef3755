"""``mindspore.ops.operations._inner_ops`` (``from mindspore.ops.operations import _inner_ops as inner``): the inner
primitives MindSpore's tests use that mean something in eager execution —

* ``CheckBprop`` / ``check_bprop``: checks a user bprop's gradients against its inputs (count, shape, dtype), with
  MindSpore's messages (the check Custom ops run on their bprop, :mod:`npusim.frontend.bprop_check`);
* ``ConvertToDynamic`` / ``GpuConvertToDynamicShape``: mark a tensor's shape dynamic for graph compilation; eager
  execution compiles nothing, so they return their input (gradient: passed through);
* ``MixedPrecisionCast``: cast the float tensors of a value (a tensor or nested tuple/list) to a dtype.

Any other name raises UnsupportedError.
"""
from npusim.frontend import bprop_check
from npusim.frontend.array_ops import Cast
from npusim.frontend.primitive import NumpyPrimitive, Primitive
from npusim.frontend.tensor import Tensor
from npusim.ms.ops.unsupported import missing_attribute


class CheckBprop(Primitive):
    """``CheckBprop(prim_to_check="")(grads, params)`` → ``grads`` when each gradient has its parameter's shape and
    dtype (ValueError / TypeError in MindSpore's words otherwise)."""

    def __init__(self, prim_to_check=""):
        super().__init__("CheckBprop")
        self.add_prim_attr("prim_to_check", prim_to_check)

    def __call__(self, input_x, input_y):
        tips = "user defined method 'bprop'"
        grads = tuple(input_x) if isinstance(input_x, (tuple, list)) else (input_x,)
        params = tuple(input_y) if isinstance(input_y, (tuple, list)) else (input_y,)
        bprop_check.check_count(tips, len(grads), len(params))
        bprop_check.check_grads(tips, params, grads, check_dtype=True)
        return input_x


check_bprop = CheckBprop()


class ConvertToDynamic(NumpyPrimitive):
    """``ConvertToDynamic(is_dynamic_rank=False)(x)``: x (a graph-compilation hint)."""

    def __init__(self, is_dynamic_rank=False):
        super().__init__("ConvertToDynamic")
        self.add_prim_attr("is_dynamic_rank", bool(is_dynamic_rank))

    def forward(self, x):
        return x

    def backward(self, args, arrays, out, dout):
        return (dout,)


class GpuConvertToDynamicShape(ConvertToDynamic):
    """``GpuConvertToDynamicShape()(x)``: x."""

    def __init__(self):
        super().__init__(False)
        self.name = "GpuConvertToDynamicShape"


class MixedPrecisionCast(Primitive):
    """``MixedPrecisionCast()(dst_dtype, x)``: float tensors in ``x`` (nested tuples/lists too) cast to
    ``dst_dtype``; everything else unchanged."""

    def __init__(self):
        super().__init__("MixedPrecisionCast")
        self._cast = Cast()

    def __call__(self, dst_dtype, x):
        if isinstance(x, (tuple, list)):
            return type(x)(self(dst_dtype, item) for item in x)
        if isinstance(x, Tensor) and x.dtype.np_dtype.kind == "f":
            return self._cast(x, dst_dtype)
        return x


__getattr__ = missing_attribute(__name__, "CheckBprop, check_bprop, ConvertToDynamic, GpuConvertToDynamicShape "
                                          "and MixedPrecisionCast")
