"""``tvm.expr`` of CANN's TVM: expression classes for ``isinstance`` checks (TVM 0.27's ``tvm.tirx`` / ``tvm.ir``).

Each class name stands for the TVM 0.27 class of that name (:func:`~te_compat.surface.tvm_objects.served_class`):
``isinstance`` answers for the surface expressions op code holds and for raw TVM objects alike, and calling one
(``tvm.expr.IntImm("int32", 3)``) builds the TVM object, wrapped.  Old TVM's ``UIntImm`` and ``SizeVar`` have no
TVM 0.27 class: ``UIntImm`` is ``IntImm`` (unsigned dtypes) and ``SizeVar`` is ``Var``.  ``ConstExpr`` is the tuple
of constant classes.
"""
from tvm import ir as _ir
from tvm import tirx as _tirx
from tvm.tirx import expr as _tirx_expr

from te_compat.surface.tvm_objects import served_class

_TIRX_CLASSES = ("EQ", "GE", "GT", "LE", "LT", "NE", "Add", "And", "Broadcast", "BufferLoad", "Cast", "CommReducer",
                 "Div", "FloatImm", "FloorDiv", "FloorMod", "IntImm", "IterVar", "Let", "Max", "Min", "Mod", "Mul",
                 "Not", "Or", "Ramp", "Reduce", "Select", "Shuffle", "Sub", "Var")
_IR_CLASSES = ("Call", "StringImm")
_TIRX_EXPR_CLASSES = ("BinaryOpExpr", "CmpExpr", "LogicalExpr")
_served = {name: served_class(getattr(module, name), __name__)
           for module, names in ((_tirx, _TIRX_CLASSES), (_ir, _IR_CLASSES), (_tirx_expr, _TIRX_EXPR_CLASSES))
           for name in names}
globals().update(_served)

UIntImm = _served["IntImm"]
SizeVar = _served["Var"]
ConstExpr = (_served["IntImm"], _served["FloatImm"], _served["StringImm"])

__all__ = sorted([*_served, "ConstExpr", "SizeVar", "UIntImm"])
