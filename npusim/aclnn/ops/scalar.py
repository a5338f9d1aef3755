"""Tensor-scalar element-wise operators: Muls, Adds / Subs (alpha) and their Inplace forms.

``other`` (and ``alpha``) are aclScalars.  The result dtype is ``self``'s unless the scalar is of a higher category
(an integer tensor with a float scalar computes in float32), as aclnn (PyTorch) promotes wrapped numbers; ``out``
has ``self``'s shape and a dtype the result casts to.
"""
from __future__ import annotations

from npusim.aclnn import graph
from npusim.aclnn.dtypes import can_cast, promote_scalar
from npusim.aclnn.elementwise import Formula, launch, scaled
from npusim.aclnn.op import Op
from npusim.aclnn.ops.common import ARITH, compute_dtype, scalar_value, tvm_const
from npusim.aclnn.params import params
from te_compat.objects import dtype_of


def _plus(a, value):
    from te_compat import dsl
    dtype = str(a.dtype)
    if dtype.startswith(("int", "uint")):
        return dsl.vadd(a, graph.const_tensor(value, tuple(int(d) for d in a.shape), dtype))
    return dsl.vadds(a, value)


MULS = Formula(lambda a, s: scaled(a, s), lambda a, s: a * tvm_const(s, dtype_of(a)))
ADDS = Formula(lambda a, s, alpha: _plus(a, s * alpha), lambda a, s, alpha: a + tvm_const(s * alpha, dtype_of(a)))
SUBS = Formula(lambda a, s, alpha: _plus(a, -s * alpha), lambda a, s, alpha: a - tvm_const(s * alpha, dtype_of(a)))


def _scalar_op(formula: Formula, self_name: str, out_name: str, alpha: bool):
    def run(inv):
        other = inv["other"]
        graph.check_device_dtype(inv, self_name, inv[self_name].dtype)
        graph.check_device_dtype(inv, out_name, inv[out_name].dtype)
        promoted = promote_scalar(inv[self_name].dtype, other.dtype)
        graph.check_out_shape(inv, out_name, inv[self_name].shape)
        graph.check_cast(inv, out_name, promoted)
        compute = compute_dtype(promoted)
        attrs = (scalar_value(other.value, compute),)
        if alpha:
            if not can_cast(inv["alpha"].dtype, promoted):
                raise inv.fail("alpha", f"dtype {inv['alpha'].dtype} cannot be converted to the result dtype "
                                        f"{promoted}")
            attrs += (scalar_value(inv["alpha"].value, compute),)
        launch(inv, [self_name], out_name, compute, formula, attrs)
    return run


def _pair(name: str, formula: Formula, summary: str, alpha: bool = False) -> tuple:
    extra = ("alpha:scalar",) if alpha else ()
    plain = Op(f"aclnn{name}", params("self:tensor", "other:scalar", *extra, "out:tensor!", dtypes=ARITH),
               _scalar_op(formula, "self", "out", alpha), summary)
    inplace = Op(f"aclnnInplace{name}", params("selfRef:tensor!", "other:scalar", *extra, dtypes=ARITH),
                 _scalar_op(formula, "selfRef", "selfRef", alpha), f"{summary} (in place)")
    return plain, inplace


OPS = (
    *_pair("Muls", MULS, "out = self * other (scalar)"),
    *_pair("Adds", ADDS, "out = self + alpha * other (scalar)", alpha=True),
    *_pair("Subs", SUBS, "out = self - alpha * other (scalar)", alpha=True),
)

__all__ = ["OPS"]
