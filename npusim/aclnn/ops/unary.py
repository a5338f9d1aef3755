"""One-input element-wise operators: Neg, Abs, Exp, Log, Sqrt, Rsqrt, Reciprocal, Sigmoid, Relu (and Inplace forms).

``out`` has ``self``'s shape.  Exp / Log / Sqrt / Rsqrt / Reciprocal / Sigmoid of integers or bools compute in
float32 (so ``out`` must be a float dtype); the others keep ``self``'s dtype.
"""
from __future__ import annotations

from npusim.aclnn import graph
from npusim.aclnn.elementwise import Formula, launch, scaled
from npusim.aclnn.op import Op
from npusim.aclnn.ops.common import FLOAT, REAL, compute_dtype, tvm_const
from npusim.aclnn.params import params
from te_compat.objects import dtype_of

_FLOATS = ("float16", "float32")
_NUMBERS = tuple(d for d in REAL if d != "bool")


def _dsl():
    from te_compat import dsl
    return dsl


def _tir():
    from tvm import tirx
    return tirx


def _abs(a):
    return _dsl().vabs(a) if str(a.dtype).startswith("float") else _dsl().vmax(a, scaled(a, -1))


def _relu(a):
    dtype = str(a.dtype)
    if dtype == "float16":
        return _dsl().vrelu(a)
    if dtype == "float32":
        return _dsl().vmaxs(a, 0.0)
    return _dsl().vmax(a, graph.const_tensor(0, tuple(int(d) for d in a.shape), dtype))


def _zero(a):
    return tvm_const(0, dtype_of(a))


def _one(a):
    return tvm_const(1, dtype_of(a))


NEG = Formula(lambda a: scaled(a, -1), lambda a: -a)
ABS = Formula(_abs, lambda a: _tir().abs(a))
RELU = Formula(_relu, lambda a: _tir().max(a, _zero(a)))
EXP = Formula(lambda a: _dsl().vexp(a), lambda a: _tir().exp(a), native=_FLOATS)
LOG = Formula(lambda a: _dsl().vlog(a), lambda a: _tir().log(a), native=_FLOATS)
SQRT = Formula(lambda a: _dsl().vsqrt(a), lambda a: _tir().sqrt(a), native=_FLOATS)
RSQRT = Formula(lambda a: _dsl().vrsqrt(a), lambda a: _one(a) / _tir().sqrt(a), native=_FLOATS)
SIGMOID = Formula(lambda a: _dsl().vrec(_dsl().vadds(_dsl().vexp(_dsl().vmuls(a, -1.0)), 1.0)),
                  lambda a: _one(a) / (_one(a) + _tir().exp(-a)), native=_FLOATS)
RECIPROCAL = Formula(lambda a: _dsl().vrec(a), lambda a: _one(a) / a, native=_FLOATS)


def _unary(formula: Formula, self_name: str, out_name: str, to_float: bool):
    def run(inv):
        dtype = inv[self_name].dtype
        graph.check_device_dtype(inv, self_name, dtype)
        graph.check_device_dtype(inv, out_name, inv[out_name].dtype)
        result = "float32" if to_float and dtype not in FLOAT else dtype
        graph.check_out_shape(inv, out_name, inv[self_name].shape)
        graph.check_cast(inv, out_name, result)
        launch(inv, [self_name], out_name, compute_dtype(result), formula)
    return run


def _ops(name: str, formula: Formula, dtypes: tuple, summary: str, to_float: bool = False, inplace: bool = True):
    rows = [Op(f"aclnn{name}", params("self:tensor", "out:tensor!", dtypes=dtypes),
               _unary(formula, "self", "out", to_float), summary)]
    if inplace:
        rows.append(Op(f"aclnnInplace{name}", params("selfRef:tensor!", dtypes=dtypes),
                       _unary(formula, "selfRef", "selfRef", to_float), f"{summary} (in place)"))
    return tuple(rows)


OPS = (
    *_ops("Neg", NEG, _NUMBERS, "out = -self"),
    *_ops("Abs", ABS, REAL, "out = |self|", inplace=False),
    *_ops("Relu", RELU, _NUMBERS, "out = max(self, 0)"),
    *_ops("Exp", EXP, REAL, "out = e ** self", to_float=True),
    *_ops("Log", LOG, REAL, "out = ln(self)", to_float=True),
    *_ops("Sqrt", SQRT, REAL, "out = sqrt(self)", to_float=True),
    *_ops("Rsqrt", RSQRT, REAL, "out = 1 / sqrt(self)", to_float=True),
    *_ops("Reciprocal", RECIPROCAL, REAL, "out = 1 / self", to_float=True),
    *_ops("Sigmoid", SIGMOID, REAL, "out = 1 / (1 + e ** -self)", to_float=True),
)

__all__ = ["OPS"]
