"""Comparisons and logic: aclnnEqTensor / NeTensor / GtTensor / GeTensor / LtTensor / LeTensor (self, other, out),
their Scalar forms (other an aclScalar), and aclnnLogicalAnd / LogicalOr / LogicalXor (self, other, out),
aclnnLogicalNot (self, out).

Operands broadcast and promote as in arithmetic and compare in the promoted dtype; the result is bool, written to
``out`` of any dtype (true is 1).  Logic treats nonzero as true.  float16 / float32 comparisons run on the vector unit
(vcmp); integer ones (exact) and the logic operators on the scalar pipe.
"""
from __future__ import annotations

from npusim.aclnn import graph
from npusim.aclnn.dtypes import promote_scalar
from npusim.aclnn.elementwise import Formula, launch
from npusim.aclnn.op import Op
from npusim.aclnn.ops.common import REAL, compute_dtype, scalar_value, tvm_const
from npusim.aclnn.params import params
from te_compat.objects import dtype_of

_FLOATS = ("float16", "float32")
_OPS = {"Eq": ("eq", lambda a, b: a == b), "Ne": ("ne", lambda a, b: a != b), "Gt": ("gt", lambda a, b: a > b),
        "Ge": ("ge", lambda a, b: a >= b), "Lt": ("lt", lambda a, b: a < b), "Le": ("le", lambda a, b: a <= b)}


def _vcmp(operation: str):
    def compare(a, b):
        from te_compat import dsl
        return dsl.vcmp(a, b, operation, "bool")
    return compare


def _tensor_formula(operation: str, relation) -> Formula:
    return Formula(_vcmp(operation), relation, native=_FLOATS, result="bool")


def _scalar_formula(operation: str, relation) -> Formula:
    return Formula(_vcmp(operation), lambda a, s: relation(a, tvm_const(s, dtype_of(a))), native=_FLOATS,
                   result="bool")


def _compare_tensors(formula: Formula):
    def run(inv):
        promoted = graph.check_promote(inv, "self", "other")
        for name in ("self", "other", "out"):
            graph.check_device_dtype(inv, name, inv[name].dtype)
        graph.check_out_shape(inv, "out", graph.check_broadcast(inv, "self", "other"))
        launch(inv, ["self", "other"], "out", compute_dtype(promoted), formula)
    return run


def _compare_scalar(formula: Formula):
    def run(inv):
        for name in ("self", "out"):
            graph.check_device_dtype(inv, name, inv[name].dtype)
        promoted = promote_scalar(inv["self"].dtype, inv["other"].dtype)
        graph.check_out_shape(inv, "out", inv["self"].shape)
        compute = compute_dtype(promoted)
        launch(inv, ["self"], "out", compute, formula, (scalar_value(inv["other"].value, compute),))
    return run


def _logic(inputs: tuple, relation):
    formula = Formula(None, relation, native=(), result="bool")

    def run(inv):
        for name in inputs + ("out",):
            graph.check_device_dtype(inv, name, inv[name].dtype)
        shape = graph.check_broadcast(inv, *inputs) if len(inputs) == 2 else inv["self"].shape
        graph.check_out_shape(inv, "out", shape)
        launch(inv, list(inputs), "out", "bool", formula)
    return run


def _tir():
    from tvm import tirx
    return tirx


def _xor(a, b):
    tirx = _tir()  # not ``a != b``: TVMScript prints a chain of comparisons it then misreads
    return tirx.any(tirx.all(a, tirx.Not(b)), tirx.all(tirx.Not(a), b))


def _rows() -> tuple:
    rows = []
    for name, (operation, relation) in _OPS.items():
        rows.append(Op(f"aclnn{name}Tensor", params("self:tensor", "other:tensor", "out:tensor!", dtypes=REAL),
                       _compare_tensors(_tensor_formula(operation, relation)), f"out = self {operation} other"))
        rows.append(Op(f"aclnn{name}Scalar", params("self:tensor", "other:scalar", "out:tensor!", dtypes=REAL),
                       _compare_scalar(_scalar_formula(operation, relation)), f"out = self {operation} other (scalar)"))
    binary = ("self", "other")
    rows += [
        Op("aclnnLogicalAnd", params("self:tensor", "other:tensor", "out:tensor!", dtypes=REAL),
           _logic(binary, lambda a, b: _tir().all(a, b)), "out = self and other", pipe="scalar"),
        Op("aclnnLogicalOr", params("self:tensor", "other:tensor", "out:tensor!", dtypes=REAL),
           _logic(binary, lambda a, b: _tir().any(a, b)), "out = self or other", pipe="scalar"),
        Op("aclnnLogicalXor", params("self:tensor", "other:tensor", "out:tensor!", dtypes=REAL),
           _logic(binary, _xor), "out = self xor other", pipe="scalar"),
        Op("aclnnLogicalNot", params("self:tensor", "out:tensor!", dtypes=REAL),
           _logic(("self",), lambda a: _tir().Not(a)), "out = not self", pipe="scalar"),
    ]
    return tuple(rows)


OPS = _rows()

__all__ = ["OPS"]
