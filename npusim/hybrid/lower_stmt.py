"""Lowering of a hybrid function's statements to one TIR PrimFunc, for fixed input shapes/dtypes and attributes.

Decisions (all loops run serially, so these keep Python's meaning):

- every loop kind (range/serial/vectorize/parallel/reduce/grid) becomes a serial TIR loop; LLVM vectorises;
- a name assigned once with a compile-time value (``n = a.shape[0]``) or a tensor is an alias; any other
  assigned name is a local scalar stored in a 1-element buffer allocated at the top of the function, so it can
  be written in loops and read after them.  Its dtype is the join of every value assigned to it (found by
  re-lowering until it is stable; see :func:`npusim.hybrid.kernel_ir.lower_kernel`);
- ``allocate`` buffers are hoisted to the top too and zero-filled where the ``allocate`` stood (the numpy
  emulation hands out zeros); output tensors are zero-filled by the launcher;
- ``if`` on a compile-time condition keeps only the taken branch.
"""
from __future__ import annotations

import ast

from tvm import tirx

from npusim.errors import HybridSyntaxError, HybridValueError
from npusim.hybrid import intrinsics as intr
from npusim.hybrid.dtypes import TypeInfo, join_types, normalize_dtype
from npusim.hybrid.lower_expr import ExprLowering, is_static
from npusim.hybrid.values import (Buf, Dyn, as_bool, const, declare_buffer, is_static_scalar, seq, static_int,
                                  to_expr, type_of, zero_fill)
from npusim.hybrid.lower_loops import LoopLowering


class KernelLowering(LoopLowering, ExprLowering):
    """One lowering pass.  ``scalar_types`` fixes the dtype of local scalars (empty on the first pass)."""

    def __init__(self, source, inputs: list, attrs: dict, scalar_types: dict):
        self.src = source
        self.scope: dict = {}
        self.inputs = inputs                      # list of Buf, role "input"
        self.outputs: list = []                   # Buf, role "output", in declaration order
        self.hoisted: list = []                   # Buf allocated at the top (locals and scalars)
        self.scalar_types = dict(scalar_types)    # name → TypeInfo used in this pass
        self.observed: dict = {}                  # name → list of TypeInfo assigned in this pass
        self.written_inputs: set = set()
        self.returns: list = []
        for buf in inputs:
            self.scope[buf.name] = buf
        self.scope.update(attrs)
        self.assign_counts = _assignment_counts(source.tree)

    # ---- driver ---------------------------------------------------------------------------------------------
    def lower_body(self):
        """Lower the whole function body; returns the TIR statement (allocations first)."""
        body = self.block(self.src.tree.body)
        allocations = [tirx.AllocBuffer(buf.buffer) for buf in self.hoisted]
        return seq(allocations + [body])

    def final_scalar_types(self) -> dict:
        return {name: join_types(types) for name, types in self.observed.items()}

    def block(self, stmts: list):
        return seq([self.stmt(s) for s in stmts])

    def stmt(self, node):
        method = getattr(self, "stmt_" + type(node).__name__, None)
        if method is None:
            self.fail(HybridSyntaxError, f"the statement '{type(node).__name__}' is not supported", node)
        return method(node)

    def lookup(self, name: str, node):
        value = self.scope.get(name)
        if value is None:
            row = intr.intrinsic(name)
            if row is not None and row.kind == intr.CAST:
                return name                       # a dtype name used as a value: allocate(shape, float16)
            self.undeclared(name, node)
        if isinstance(value, Buf) and value.role == "scalar":
            return Dyn(tirx.BufferLoad(value.buffer, [const(0, "int32")]), value.weak)
        return value

    # ---- simple statements ----------------------------------------------------------------------------------
    def stmt_Pass(self, node):
        return None

    def stmt_Expr(self, node):
        if isinstance(node.value, ast.Constant):
            return None                           # docstring / bare literal
        self.expr(node.value)                     # intrinsics have no side effects: evaluate for errors only
        return None

    def stmt_Return(self, node):
        names = [node.value] if isinstance(node.value, ast.Name) else list(node.value.elts)
        for name_node in names:
            buf = self.scope.get(name_node.id)
            if not isinstance(buf, Buf) or buf.role not in ("input", "output"):
                self.fail(HybridSyntaxError, f"the returned name {name_node.id} is not an input or an output "
                          "tensor", node)
            self.returns.append(buf)
        return None

    def stmt_With(self, node):
        return self.block(node.body)

    def stmt_If(self, node):
        cond = self.expr(node.test)
        if is_static(cond):
            return self.block(node.body if cond else node.orelse)
        then_stmt = self.block(node.body)
        else_stmt = self.block(node.orelse) if node.orelse else None
        return tirx.IfThenElse(as_bool(cond), then_stmt, else_stmt)

    # ---- assignments ----------------------------------------------------------------------------------------
    def stmt_Assign(self, node):
        target = node.targets[0]
        if isinstance(target, ast.Name) and _is_buffer_call(node.value):
            return self.declare_tensor(target.id, node.value)
        value = self.expr(node.value)
        return self.assign(target, value, node)

    def assign(self, target, value, node):
        if isinstance(target, ast.Subscript):
            return self.store(target, value, node)
        if isinstance(target, (ast.Tuple, ast.List)):
            if not isinstance(value, tuple) or len(value) != len(target.elts):
                self.fail(HybridValueError, f"cannot unpack '{ast.unparse(node.value)}' into "
                          f"{len(target.elts)} names", node)
            staged, stmts = self.stage(value)
            return seq(stmts + [self.assign(t, v, node) for t, v in zip(target.elts, staged)])
        if isinstance(target, ast.Name):
            return self.assign_name(target.id, value, node)
        self.fail(HybridSyntaxError, f"cannot assign to '{ast.unparse(target)}'", node)

    def stage(self, values: tuple):
        """Copy run-time values into temporaries first, so ``a, b = b, a`` reads before it writes."""
        staged, stmts = [], []
        for value in values:
            if isinstance(value, Dyn):
                temp = Buf(f"tmp{len(self.hoisted)}", declare_buffer(f"tmp{len(self.hoisted)}", (1,), value.dtype),
                           (1,), value.dtype, "scalar", weak=value.weak)
                self.hoisted.append(temp)
                stmts.append(tirx.BufferStore(temp.buffer, value.expr, [const(0, "int32")]))
                value = Dyn(tirx.BufferLoad(temp.buffer, [const(0, "int32")]), value.weak)
            staged.append(value)
        return tuple(staged), stmts

    def assign_name(self, name: str, value, node):
        single = self.assign_counts.get(name, 0) <= 1
        if single and (is_static(value) or isinstance(value, (Buf, tuple))):
            self.scope[name] = value              # compile-time alias
            return None
        if isinstance(value, (Buf, tuple)) or isinstance(value, str):
            self.fail(HybridValueError, f"the variable {name} is assigned more than once; only numbers can be "
                      "reassigned", node)
        return self.assign_scalar(name, value, node)

    def assign_scalar(self, name: str, value, node):
        if not (isinstance(value, Dyn) or is_static_scalar(value)):
            self.fail(HybridValueError, f"cannot assign '{ast.unparse(node)}' to a local variable", node)
        self.observed.setdefault(name, []).append(type_of(value))
        buf = self.scope.get(name)
        if not (isinstance(buf, Buf) and buf.role == "scalar"):
            buf = self.new_scalar(name, self.scalar_types.get(name) or type_of(value))
        return tirx.BufferStore(buf.buffer, to_expr(value, buf.dtype), [const(0, "int32")])

    def new_scalar(self, name: str, vtype: TypeInfo) -> Buf:
        self.scalar_types[name] = vtype
        buf = Buf(name, declare_buffer(name, (1,), vtype.dtype), (1,), vtype.dtype, "scalar", weak=vtype.weak)
        self.hoisted.append(buf)
        self.scope[name] = buf
        return buf

    def store(self, target: ast.Subscript, value, node):
        buf = self.expr(target.value)
        if not isinstance(buf, Buf) or buf.role == "scalar":
            self.fail(HybridSyntaxError, f"only tensors can be assigned by index: {ast.unparse(target)}", node)
        if not (isinstance(value, Dyn) or is_static_scalar(value)):
            self.fail(HybridValueError, f"a tensor element must be assigned a number: {ast.unparse(node)}", node)
        if buf.role == "input":
            self.written_inputs.add(buf.index)
        indices = self.indices(buf, target.slice, target)
        return tirx.BufferStore(buf.buffer, to_expr(value, buf.dtype), indices)

    def stmt_AugAssign(self, node):
        target, op = node.target, type(node.op)
        if isinstance(target, ast.Name):
            current = self.lookup(target.id, target)
            value = self.binary(op, current, self.numeric(node.value), node)
            return self.assign_scalar(target.id, value, node)
        if not isinstance(target, ast.Subscript):
            self.fail(HybridSyntaxError, f"cannot assign to '{ast.unparse(target)}'", node)
        buf = self.expr(target.value)
        if not isinstance(buf, Buf):
            self.fail(HybridSyntaxError, f"only tensors can be assigned by index: {ast.unparse(target)}", node)
        indices = self.indices(buf, target.slice, target)
        current = Dyn(tirx.BufferLoad(buf.buffer, indices), buf.weak)
        value = self.binary(op, current, self.numeric(node.value), node)
        if buf.role == "input":
            self.written_inputs.add(buf.index)
        return tirx.BufferStore(buf.buffer, to_expr(value, buf.dtype), indices)

    # ---- tensors --------------------------------------------------------------------------------------------
    def declare_tensor(self, name: str, call: ast.Call):
        """``name = output_tensor(shape, dtype)`` / ``allocate(shape, dtype[, scope])``."""
        args = list(call.args) + [kw.value for kw in call.keywords if kw.arg in ("shape", "dtype")]
        shape = self.static_shape(self.expr(args[0]), call)
        dtype_value = self.expr(args[1]) if len(args) > 1 else "float32"
        try:
            dtype = normalize_dtype(dtype_value)
        except TypeError as exc:
            self.fail(HybridValueError, f"bad dtype for tensor {name}: {exc}", call)
        if call.func.id == "output_tensor":
            buf = Buf(name, declare_buffer(name, shape, dtype), shape, dtype, "output", len(self.outputs))
            self.outputs.append(buf)
            self.scope[name] = buf
            return None
        buf = Buf(name, declare_buffer(name, shape, dtype), shape, dtype, "local")
        self.hoisted.append(buf)
        self.scope[name] = buf
        return zero_fill(buf)

    def static_shape(self, value, node) -> tuple:
        items = value if isinstance(value, tuple) else (value,)
        shape = tuple(static_int(item) for item in items)
        if any(s is None or s < 0 for s in shape):
            self.fail(HybridValueError, f"a tensor shape must be known at compile time: {ast.unparse(node)}", node)
        return shape


def _is_buffer_call(node) -> bool:
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and node.func.id in ("output_tensor", "allocate"))


def _assignment_counts(tree) -> dict:
    """How often each name is assigned (augmented assignments count twice: they need a variable)."""
    counts: dict = {}

    def add(target, weight):
        if isinstance(target, ast.Name):
            counts[target.id] = counts.get(target.id, 0) + weight
        elif isinstance(target, (ast.Tuple, ast.List)):
            for elt in target.elts:
                add(elt, weight)

    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                add(target, 1)
        elif isinstance(node, ast.AugAssign):
            add(node.target, 2)
    return counts
