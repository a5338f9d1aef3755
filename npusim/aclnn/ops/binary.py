"""Tensor-tensor element-wise operators: Mul, Add / Sub (alpha), Div, Maximum, Minimum and their Inplace forms.

Conventions (aclnn's): ``self`` and ``other`` broadcast numpy-style and promote (see :mod:`npusim.aclnn.dtypes`);
``out`` has the broadcast shape and a dtype the promoted one casts to; ``alpha`` (Add / Sub) is an aclScalar whose
dtype casts to the promoted one.  Div of integers or bools is true division in float32.  The Inplace forms write
``selfRef``, whose shape must be the broadcast shape.
"""
from __future__ import annotations

from npusim.aclnn import graph
from npusim.aclnn.dtypes import can_cast
from npusim.aclnn.elementwise import Formula, launch, scaled
from npusim.aclnn.op import Op
from npusim.aclnn.ops.common import ARITH, REAL, compute_dtype, scalar_value, tvm_const
from npusim.aclnn.params import params
from te_compat.objects import dtype_of


def _dsl():
    from te_compat import dsl
    return dsl


def _tvm_max(a, b):
    from tvm import tirx
    return tirx.max(a, b)


def _tvm_min(a, b):
    from tvm import tirx
    return tirx.min(a, b)


MUL = Formula(lambda a, b: _dsl().vmul(a, b), lambda a, b: a * b)
ADD = Formula(lambda a, b, alpha: _dsl().vadd(a, scaled(b, alpha)),
              lambda a, b, alpha: a + b * tvm_const(alpha, dtype_of(b)))
SUB = Formula(lambda a, b, alpha: _dsl().vsub(a, scaled(b, alpha)),
              lambda a, b, alpha: a - b * tvm_const(alpha, dtype_of(b)))
DIV = Formula(lambda a, b: _dsl().vdiv(a, b), lambda a, b: a / b, native=("float16", "float32"))
MAXIMUM = Formula(lambda a, b: _dsl().vmax(a, b), _tvm_max)
MINIMUM = Formula(lambda a, b: _dsl().vmin(a, b), _tvm_min)


def _binary(formula: Formula, self_name: str, out_name: str, alpha: bool = False, true_div: bool = False,
            no_bool: bool = False):
    def run(inv):
        promoted = graph.check_promote(inv, self_name, "other")
        if no_bool and promoted == "bool":
            raise inv.fail("other", f"{inv.api} of two bool tensors is not supported (use aclnnLogicalXor)")
        if true_div and promoted in ("bool",) + tuple(d for d in ARITH if d.startswith(("int", "uint"))):
            promoted = "float32"
        for name in {self_name, "other", out_name}:
            graph.check_device_dtype(inv, name, inv[name].dtype)
        shape = graph.check_broadcast(inv, self_name, "other")
        graph.check_out_shape(inv, out_name, shape)
        graph.check_cast(inv, out_name, promoted)
        compute = compute_dtype(promoted)
        attrs = ()
        if alpha:
            scalar = inv["alpha"]
            if not can_cast(scalar.dtype, promoted):
                raise inv.fail("alpha", f"dtype {scalar.dtype} cannot be converted to the promoted dtype {promoted}")
            attrs = (scalar_value(scalar.value, compute),)
        launch(inv, [self_name, "other"], out_name, compute, formula, attrs)
    return run


def _pair(name: str, formula: Formula, dtypes: tuple, summary: str, alpha: bool = False, **flags) -> tuple:
    """aclnnX(self, other[, alpha], out) and aclnnInplaceX(selfRef, other[, alpha])."""
    extra = ("alpha:scalar",) if alpha else ()
    plain = Op(f"aclnn{name}", params("self:tensor", "other:tensor", *extra, "out:tensor!", dtypes=dtypes),
               _binary(formula, "self", "out", alpha, **flags), summary)
    inplace = Op(f"aclnnInplace{name}", params("selfRef:tensor!", "other:tensor", *extra, dtypes=dtypes),
                 _binary(formula, "selfRef", "selfRef", alpha, **flags), f"{summary} (in place)")
    return plain, inplace


OPS = (
    *_pair("Mul", MUL, ARITH, "out = self * other"),
    *_pair("Add", ADD, ARITH, "out = self + alpha * other", alpha=True),
    *_pair("Sub", SUB, ARITH, "out = self - alpha * other", alpha=True, no_bool=True),
    *_pair("Div", DIV, ARITH, "out = self / other (true division)", true_div=True),
    *_pair("Maximum", MAXIMUM, REAL, "out = max(self, other)")[:1],
    *_pair("Minimum", MINIMUM, REAL, "out = min(self, other)")[:1],
)

__all__ = ["OPS"]
