"""aclnnCast(self, dtype, out): ``self`` converted to ``dtype`` (``out``'s dtype, same shape).

Floats convert to integers by truncation toward zero, anything to bool as "nonzero", integers to narrower integers
wrapping: the conversions of aclnn (PyTorch's ``Tensor.to``).  Conversions the DSL's vconv chains make run on the
vector unit; the others (int64, float64, int16, to bool ...) on the scalar pipe.
"""
from __future__ import annotations

from npusim.aclnn import graph
from npusim.aclnn.elementwise import Formula, launch
from npusim.aclnn.op import Op
from npusim.aclnn.ops.common import CASTABLE
from npusim.aclnn.params import params


def _copy(a):
    from te_compat import dsl
    dtype = str(a.dtype)
    if dtype.startswith("float"):
        return dsl.vmuls(a, 1.0)
    return dsl.vmul(a, graph.const_tensor(1, tuple(int(d) for d in a.shape), dtype))


_CONVERT = Formula(lambda a: a, lambda a: a, native=("float16", "float32", "int8", "uint8", "int32", "bool"))
_SAME = Formula(_copy, lambda a: a, native=("float16", "float32", "int32"))


def _cast(inv):
    target = inv["dtype"].dtype_name
    for name in ("self", "out"):
        graph.check_device_dtype(inv, name, inv[name].dtype)
    if target != inv["out"].dtype:
        raise inv.fail("out", f"dtype {inv['out'].dtype} must be the dtype argument's, {target}")
    graph.check_out_shape(inv, "out", inv["self"].shape)
    source = inv["self"].dtype
    launch(inv, ["self"], "out", source, _SAME if source == target else _CONVERT)


OPS = (Op("aclnnCast", params("self:tensor", "dtype:dtype", "out:tensor!", dtypes=CASTABLE), _cast,
          "out = self converted to dtype"),)

__all__ = ["OPS"]
