"""Lowering of DSL expressions (AST → compile-time Python values or TIR expressions).

Arithmetic follows Python where it differs from C: ``/`` is true division (ints → float), ``//`` and ``%`` floor.
Operands are brought to a common dtype by :func:`npusim.hybrid.dtypes.result_type`.
Expressions whose operands are all known at compile time are folded in Python.
"""
from __future__ import annotations

import ast
import operator

from tvm import tirx

from npusim.errors import HybridNameError, HybridSyntaxError, HybridValueError
from npusim.hybrid import lower_intrin
from npusim.hybrid.dtypes import float_type_for, is_float, result_type
from npusim.hybrid.values import (Buf, Dyn, as_bool, const, is_static_scalar, static_int, to_expr, type_of)

_PY_BINARY = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow,
    ast.BitAnd: operator.and_, ast.BitOr: operator.or_, ast.BitXor: operator.xor,
    ast.LShift: operator.lshift, ast.RShift: operator.rshift,
}
_PY_COMPARE = {
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
    ast.Gt: operator.gt, ast.GtE: operator.ge, ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b,
    ast.Is: operator.is_, ast.IsNot: operator.is_not,
}
_TIR_COMPARE = {ast.Eq: tirx.EQ, ast.NotEq: tirx.NE, ast.Lt: tirx.LT, ast.LtE: tirx.LE, ast.Gt: tirx.GT,
                ast.GtE: tirx.GE}
_TIR_BITWISE = {ast.BitAnd: tirx.bitwise_and, ast.BitOr: tirx.bitwise_or, ast.BitXor: tirx.bitwise_xor,
                ast.LShift: tirx.shift_left, ast.RShift: tirx.shift_right}


def is_static(value) -> bool:
    """Whether ``value`` is known at compile time (a Python scalar/str or a tuple of such)."""
    if isinstance(value, tuple):
        return all(is_static(v) for v in value)
    return is_static_scalar(value) or isinstance(value, str)


class ExprLowering:
    """Expression half of the kernel lowering; :class:`npusim.hybrid.lower_stmt.KernelLowering` adds statements.

    Subclasses provide ``self.src`` (KernelSource) and ``lookup(name, node)``.
    """

    src = None

    # ---- errors ---------------------------------------------------------------------------------------------
    def fail(self, error_class, text: str, node):
        """Raise ``error_class`` with a MindSpore-style message naming the function and the line."""
        raise error_class(f"In the function {self.src.name} written in the Hybrid DSL, {text} "
                          f"({self.src.where(node)})")

    # ---- dispatch -------------------------------------------------------------------------------------------
    def expr(self, node):
        """Lower one expression node to a value (see :mod:`npusim.hybrid.values`)."""
        method = getattr(self, "expr_" + type(node).__name__, None)
        if method is None:
            self.fail(HybridSyntaxError, f"the expression '{ast.unparse(node)}' is not supported", node)
        return method(node)

    def numeric(self, node):
        """Lower ``node`` and require a number (static or Dyn)."""
        value = self.expr(node)
        if not (isinstance(value, Dyn) or is_static_scalar(value)):
            self.fail(HybridSyntaxError, f"'{ast.unparse(node)}' is not a number here", node)
        return value

    def expr_Constant(self, node):
        if node.value is None or isinstance(node.value, (bytes, complex)) or node.value is Ellipsis:
            self.fail(HybridSyntaxError, f"the constant {node.value!r} is not supported", node)
        return node.value

    def expr_Name(self, node):
        return self.lookup(node.id, node)

    def expr_Tuple(self, node):
        return tuple(self.expr(elt) for elt in node.elts)

    expr_List = expr_Tuple

    def expr_Attribute(self, node):
        base = self.expr(node.value)
        if not isinstance(base, Buf) or base.role == "scalar":
            self.fail(HybridValueError, f"getattr is only supported for a tensor object: {ast.unparse(node)}", node)
        if node.attr == "shape":
            return base.shape
        if node.attr == "dtype":
            return base.dtype
        self.fail(HybridValueError, f"a tensor object has no attribute called {node.attr}", node)

    def expr_Call(self, node):
        return lower_intrin.lower_call(self, node)

    # ---- subscripts -----------------------------------------------------------------------------------------
    def expr_Subscript(self, node):
        base = self.expr(node.value)
        if isinstance(base, Buf):
            return Dyn(tirx.BufferLoad(base.buffer, self.indices(base, node.slice, node)), base.weak)
        if isinstance(base, tuple):
            index = static_int(self.expr(node.slice))
            if index is None or not -len(base) <= index < len(base):
                self.fail(HybridValueError, f"bad index into a tuple of {len(base)}: {ast.unparse(node)}", node)
            return base[index]
        self.fail(HybridSyntaxError, f"'{ast.unparse(node.value)}' cannot be indexed", node)

    def indices(self, buf: Buf, slice_node, node) -> list:
        """TIR index expressions for ``buf[slice_node]``; static negative indices count from the end."""
        if isinstance(slice_node, ast.Slice) or (isinstance(slice_node, ast.Tuple)
                                                  and any(isinstance(e, ast.Slice) for e in slice_node.elts)):
            self.fail(HybridSyntaxError, f"slices are not supported: {ast.unparse(node)}", node)
        value = self.expr(slice_node)
        items = list(_flatten(value))
        if buf.role == "scalar":
            items = items or [0]
        if len(items) != len(buf.shape):
            self.fail(HybridValueError, f"tensor {buf.name} has {len(buf.shape)} dimension(s) but is indexed with "
                      f"{len(items)}: {ast.unparse(node)}", node)
        result = []
        for axis, item in enumerate(items):
            known = static_int(item)
            if known is not None:
                result.append(const(known + buf.shape[axis] if known < 0 else known, "int32"))
            elif isinstance(item, Dyn) and not is_float(item.dtype) and item.dtype != "bool":
                result.append(to_expr(item, "int32"))
            else:
                self.fail(HybridValueError, f"an index must be an integer: {ast.unparse(node)}", node)
        return result

    # ---- operators ------------------------------------------------------------------------------------------
    def expr_BinOp(self, node):
        return self.binary(type(node.op), self.numeric(node.left), self.numeric(node.right), node)

    def binary(self, op, left, right, node):
        """Apply a Python binary operator class (ast.Add ...) to two numeric values."""
        if is_static(left) and is_static(right):
            try:
                return _PY_BINARY[op](left, right)
            except (ZeroDivisionError, TypeError, ValueError) as exc:
                self.fail(HybridValueError, f"cannot evaluate '{ast.unparse(node)}': {exc}", node)
        rtype = result_type(type_of(left), type_of(right))
        dtype, weak = rtype.dtype, rtype.weak
        if op is ast.Pow:
            return lower_intrin.power(left, right)
        if op in _TIR_BITWISE:
            return self._bitwise(op, left, right, dtype, node)
        if dtype == "bool":
            dtype = "int32"
        if op is ast.Div and not is_float(dtype):
            dtype = float_type_for(dtype)
        a, b = to_expr(left, dtype), to_expr(right, dtype)
        if op is ast.Add:
            return Dyn(tirx.Add(a, b), weak)
        if op is ast.Sub:
            return Dyn(tirx.Sub(a, b), weak)
        if op is ast.Mult:
            return Dyn(tirx.Mul(a, b), weak)
        if op is ast.Div:
            return Dyn(tirx.Div(a, b), weak)
        if op in (ast.FloorDiv, ast.Mod):
            if is_float(dtype):
                quotient, remainder = _float_divmod(a, b, dtype)
                return Dyn(quotient if op is ast.FloorDiv else remainder, weak)
            return Dyn((tirx.floordiv if op is ast.FloorDiv else tirx.floormod)(a, b), weak)
        self.fail(HybridSyntaxError, f"the operator in '{ast.unparse(node)}' is not supported", node)

    def _bitwise(self, op, left, right, dtype, node):
        if is_float(dtype):
            self.fail(HybridValueError, f"bitwise operators need integers: {ast.unparse(node)}", node)
        if dtype == "bool" and op in (ast.BitAnd, ast.BitOr):
            join = tirx.And if op is ast.BitAnd else tirx.Or
            return Dyn(join(as_bool(left), as_bool(right)))
        dtype = "int32" if dtype == "bool" else dtype
        return Dyn(_TIR_BITWISE[op](to_expr(left, dtype), to_expr(right, dtype)))

    def expr_UnaryOp(self, node):
        value = self.numeric(node.operand)
        if isinstance(node.op, ast.Not):
            return (not value) if is_static(value) else Dyn(tirx.Not(as_bool(value)))
        if is_static(value):
            return {ast.USub: operator.neg, ast.UAdd: operator.pos, ast.Invert: operator.invert}[type(node.op)](value)
        if isinstance(node.op, ast.UAdd):
            return value
        dtype = "int32" if value.dtype == "bool" else value.dtype
        if isinstance(node.op, ast.USub):
            return Dyn(tirx.Sub(const(0, dtype), to_expr(value, dtype)), value.weak)
        if value.dtype == "bool":
            return Dyn(tirx.Not(value.expr))
        if is_float(dtype):
            self.fail(HybridValueError, f"'~' needs an integer: {ast.unparse(node)}", node)
        return Dyn(tirx.bitwise_not(value.expr), value.weak)

    def expr_Compare(self, node):
        left = self.expr(node.left)
        parts = []
        for op, comparator in zip(node.ops, node.comparators):
            right = self.expr(comparator)
            parts.append(self.compare(type(op), left, right, node))
            left = right
        return self.logical(ast.And, parts)

    def compare(self, op, left, right, node):
        """One comparison; compile-time operands give a Python bool."""
        if is_static(left) and is_static(right):
            return _PY_COMPARE[op](left, right)
        if op not in _TIR_COMPARE:
            self.fail(HybridSyntaxError, f"'{ast.unparse(node)}' needs values known at compile time", node)
        for value in (left, right):
            if not (isinstance(value, Dyn) or is_static_scalar(value)):
                self.fail(HybridSyntaxError, f"only numbers can be compared: {ast.unparse(node)}", node)
        dtype = result_type(type_of(left), type_of(right)).dtype
        if dtype == "bool":
            dtype = "int32"   # TVM's LLVM codegen emits a float compare for == / != of two bool conditions
        return Dyn(_TIR_COMPARE[op](to_expr(left, dtype), to_expr(right, dtype)))

    def expr_BoolOp(self, node):
        return self.logical(type(node.op), [self.expr(v) for v in node.values])

    def logical(self, op, values):
        """``and`` / ``or`` over values; compile-time operands are folded away."""
        dynamic = [v for v in values if not is_static(v)]
        static = [v for v in values if is_static(v)]
        if op is ast.And:
            if not all(static):
                return False
            if not dynamic:
                return values[-1] if values else True
            combined = tirx.And
        else:
            if any(static):
                return next(v for v in static if v)
            if not dynamic:
                return values[-1]
            combined = tirx.Or
        result = as_bool(dynamic[0])
        for value in dynamic[1:]:
            result = combined(result, as_bool(value))
        return Dyn(result)

    def expr_IfExp(self, node):
        cond = self.expr(node.test)
        if is_static(cond):
            return self.expr(node.body if cond else node.orelse)
        then_value, else_value = self.numeric(node.body), self.numeric(node.orelse)
        rtype = result_type(type_of(then_value), type_of(else_value))
        return Dyn(tirx.if_then_else(as_bool(cond), to_expr(then_value, rtype.dtype),
                                     to_expr(else_value, rtype.dtype)), rtype.weak)

    def undeclared(self, name: str, node):
        self.fail(HybridNameError, f"there is a undeclared variable: {name}", node)


def _float_divmod(a, b, dtype: str):
    """Python/numpy float ``//`` and ``%``: the remainder from fmod (sign fixed to follow b), the quotient from
    (a - remainder) / b rounded to the nearest integer.  Computing floor(a / b) instead gives 15 for 3.0 // 0.2,
    where Python and numpy give 14.  float16 is computed in float32."""
    out_dtype = dtype
    if dtype == "float16":
        a, b, dtype = tirx.Cast("float32", a), tirx.Cast("float32", b), "float32"
    zero = const(0, dtype)
    # TVM's LLVM backend has no fmod intrinsic; libm's is exact and already loaded in the process
    fmod = tirx.call_pure_extern(dtype, "fmodf" if dtype == "float32" else "fmod", a, b)
    fix = tirx.Or(tirx.And(tirx.GT(fmod, zero), tirx.LT(b, zero)), tirx.And(tirx.LT(fmod, zero), tirx.GT(b, zero)))
    remainder = tirx.Select(fix, tirx.Add(fmod, b), fmod)
    quotient = tirx.Div(tirx.Sub(a, remainder), b)
    floor_q = tirx.floor(quotient)
    quotient = tirx.Select(tirx.GT(tirx.Sub(quotient, floor_q), const(0.5, dtype)),
                           tirx.Add(floor_q, const(1.0, dtype)), floor_q)
    if out_dtype != dtype:
        return tirx.Cast(out_dtype, quotient), tirx.Cast(out_dtype, remainder)
    return quotient, remainder


def _flatten(value):
    if isinstance(value, tuple):
        for item in value:
            yield from _flatten(item)
    else:
        yield value
