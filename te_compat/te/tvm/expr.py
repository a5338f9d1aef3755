"""``tvm.expr`` of CANN's TVM: expression classes for ``isinstance`` checks (TVM 0.27's ``tvm.tirx`` / ``tvm.ir``).

Old TVM's ``UIntImm`` and ``SizeVar`` have no TVM 0.27 class: ``UIntImm`` is ``IntImm`` (unsigned dtypes) and
``SizeVar`` is ``Var``.  ``ConstExpr`` is the tuple of constant classes.
"""
from tvm.ir import Call, StringImm  # noqa: F401
from tvm.tirx import (  # noqa: F401
    EQ, GE, GT, LE, LT, NE, Add, And, Broadcast, BufferLoad, Cast, CommReducer, Div, FloatImm, FloorDiv, FloorMod,
    IntImm, IterVar, Let, Max, Min, Mod, Mul, Not, Or, Ramp, Reduce, Select, Shuffle, Sub, Var)
from tvm.tirx.expr import BinaryOpExpr, CmpExpr, LogicalExpr  # noqa: F401

UIntImm = IntImm
SizeVar = Var
ConstExpr = (IntImm, FloatImm, StringImm)

__all__ = ["Add", "And", "BinaryOpExpr", "Broadcast", "BufferLoad", "Call", "Cast", "CmpExpr", "CommReducer",
           "ConstExpr", "Div", "EQ", "FloatImm", "FloorDiv", "FloorMod", "GE", "GT", "IntImm", "IterVar", "LE", "LT",
           "Let", "LogicalExpr", "Max", "Min", "Mod", "Mul", "NE", "Not", "Or", "Ramp", "Reduce", "Select", "Shuffle",
           "SizeVar", "StringImm", "Sub", "UIntImm", "Var"]
