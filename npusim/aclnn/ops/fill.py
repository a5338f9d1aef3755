"""Writing a tensor whole: aclnnInplaceCopy(selfRef, src), aclnnInplaceZero(selfRef),
aclnnInplaceFillScalar(selfRef, value: scalar).

InplaceCopy broadcasts ``src`` to ``selfRef``'s shape and converts it to ``selfRef``'s dtype (any conversion, as
``Tensor.copy_``: floats to integers truncate).  The fills write one value (converted to ``selfRef``'s dtype)
everywhere: a vector fill (vector_dup) for float16 / float32 / int32, a scalar-pipe loop otherwise.
"""
from __future__ import annotations

from npusim.aclnn import graph
from npusim.aclnn.elementwise import launch
from npusim.aclnn.kernels import run_graph
from npusim.aclnn.op import Op
from npusim.aclnn.ops.cast import _CONVERT, _SAME
from npusim.aclnn.ops.common import CASTABLE, scalar_value, tvm_const
from npusim.aclnn.ops.shape import _BROADCAST
from npusim.aclnn.params import params
from npusim.aclnn.scalar_pipe import run_te

_VECTOR_FILL = ("float16", "float32", "int32")


def _copy(inv):
    dst, src = inv["selfRef"], inv["src"]
    for name in ("selfRef", "src"):
        graph.check_device_dtype(inv, name, inv[name].dtype)
    shape = graph.broadcast_shape(src.shape, dst.shape)
    if shape is None or shape != dst.shape:
        raise inv.fail("src", f"shape {list(src.shape)} does not broadcast to selfRef's shape {list(dst.shape)}")
    same_shape = graph.padded(src.shape, len(dst.shape)) == graph.kernel_shape(dst.shape)
    if src.dtype != dst.dtype:
        formula = _CONVERT
    else:
        formula = _SAME if same_shape else _BROADCAST
    launch(inv, ["src"], "selfRef", src.dtype, formula)


def fill(inv, name: str, value) -> None:
    """Write ``value`` into every element of tensor argument ``name``."""
    target = inv[name]
    graph.check_device_dtype(inv, name, target.dtype)
    if target.numel == 0:
        return
    value = scalar_value(value, target.dtype)
    shape = graph.kernel_shape(target.shape)
    if target.dtype in _VECTOR_FILL:
        from te_compat import dsl
        run_graph(inv, ("fill", value, shape, target.dtype), {}, [target.data()],
                  lambda places: [dsl.broadcast(value, shape, target.dtype)])
        return

    def compute(places):
        from tvm import te
        return [te.compute(shape, lambda *i: tvm_const(value, target.dtype), name="out")]

    run_te(inv, ("fill", value, target.dtype, shape), {}, [target], compute, "fills a value")


OPS = (
    Op("aclnnInplaceCopy", params("selfRef:tensor!", "src:tensor", dtypes=CASTABLE), _copy,
       "selfRef = src (broadcast, converted)"),
    Op("aclnnInplaceZero", params("selfRef:tensor!", dtypes=CASTABLE), lambda inv: fill(inv, "selfRef", 0),
       "selfRef = 0"),
    Op("aclnnInplaceFillScalar", params("selfRef:tensor!", "value:scalar", dtypes=CASTABLE),
       lambda inv: fill(inv, "selfRef", inv["value"].value), "selfRef = value"),
)

__all__ = ["OPS", "fill"]
