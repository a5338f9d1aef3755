"""``tvm.intrin`` of CANN's TVM: the math intrinsics (TVM 0.27's ``tvm.tirx`` functions, taking and returning
surface expressions: the same functions as :mod:`te_compat.te.tvm.api`'s)."""
from te_compat.te.tvm.api import (  # noqa: F401
    abs, call_extern, call_intrin, call_pure_extern, ceil, cos, cosh, erf, exp, floor, fmod, isnan, log, log10, log2,
    nearbyint, popcount, pow, power, round, rsqrt, sigmoid, sin, sinh, sqrt, tan, tanh, trunc)

__all__ = ["abs", "call_extern", "call_intrin", "call_pure_extern", "ceil", "cos", "cosh", "erf", "exp", "fmod",
           "floor", "isnan", "log", "log10", "log2", "nearbyint", "popcount", "pow", "power", "round", "rsqrt",
           "sigmoid", "sin", "sinh", "sqrt", "tan", "tanh", "trunc"]
