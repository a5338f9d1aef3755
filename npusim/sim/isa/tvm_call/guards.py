"""Run-time guards for ``tvm_call`` programs: the simulated GM must never be read or written out of bounds.

TVM checks the shape of every tensor argument when the function is called, but LLVM code does not check
indices: a gather with a bad index, or a hybrid kernel reading ``a[i + 1]`` in the last iteration, would touch
memory outside the GM tensor (or crash the host process).  :func:`guard` walks the flat program and, before every
statement, inserts an assertion for each buffer index and each integer divisor it cannot prove safe with TVM's
arithmetic analyzer (loop ranges and enclosing ``if`` conditions are known to it).  Affine index arithmetic over
loop variables - what TE computes produce - is proved safe at compile time and costs nothing; data-dependent
indices get one comparison each.  A failing assertion raises ``IndexError`` / ``RuntimeError`` from the TVM call,
which :mod:`npusim.sim.isa.tvm_call` turns into the simulator's typed errors.

Loads under an ``if_then_else`` / ``select`` arm are checked only when that arm is taken.
"""
from __future__ import annotations

from contextlib import ExitStack

import tvm
import tvm_ffi
from tvm import tirx

from npusim.sim.isa.tvm_call import tir_walk as tw

INDEX_MESSAGE = "tvm_call: out-of-bounds access: "
DIVISION_MESSAGE = "tvm_call: integer division by zero: "


class _Guarder:
    def __init__(self):
        from tvm.sym.analyzer import Analyzer
        self.analyzer = Analyzer()
        self.make_assert = tvm_ffi.get_global_func("tirx.AssertStmt")
        self.inserted = 0

    # -- statements ---------------------------------------------------------------------------------------------
    def stmt(self, node):
        kind = tw.node_type(node)
        if kind == "SeqStmt":
            parts = [self.stmt(s) for s in node.seq]
            return node if all(a.same_as(b) for a, b in zip(parts, node.seq)) else tirx.SeqStmt(parts)
        if kind == "For":
            tw.bind_quietly(self.analyzer, node.loop_var, tw.loop_range(node))
            body = self.stmt(node.body)
            if body.same_as(node.body):
                return node
            return tirx.For(node.loop_var, node.min, node.extent, node.kind, body, node.thread_binding,
                            node.annotations, node.step)
        if kind == "IfThenElse":
            return self.if_then_else(node)
        if kind == "BufferStore":
            checks = self.checks([node.value, *node.indices])
            self.access(node.buffer, node.indices, [], checks)
            return self.prefixed(checks, node)
        if kind == "Bind":
            checks = self.checks([node.value])
            tw.bind_quietly(self.analyzer, node.var, node.value)
            return self.prefixed(checks, node)
        if kind == "Evaluate":
            return self.prefixed(self.checks([node.value]), node)
        if kind == "While":
            body = self.stmt(node.body)
            checks = self.checks([node.condition])
            loop = node if body.same_as(node.body) else tirx.While(node.condition, body)
            return self.prefixed(checks, loop)
        if kind == "AttrStmt":
            body = self.stmt(node.body)
            return node if body.same_as(node.body) else tirx.AttrStmt(node.node, node.attr_key, node.value, body)
        return node

    def if_then_else(self, node):
        checks = self.checks([node.condition])
        with self.analyzer.constraint_scope(node.condition):
            then_case = self.stmt(node.then_case)
        else_case = node.else_case
        if else_case is not None:
            with self.analyzer.constraint_scope(tirx.Not(node.condition)):
                else_case = self.stmt(else_case)
        changed = not then_case.same_as(node.then_case) or (
            else_case is not None and not else_case.same_as(node.else_case))
        return self.prefixed(checks, tirx.IfThenElse(node.condition, then_case, else_case) if changed else node)

    def prefixed(self, checks: list, node):
        return tirx.SeqStmt(checks + [node]) if checks else node

    # -- expressions --------------------------------------------------------------------------------------------
    def checks(self, exprs) -> list:
        out: list = []
        for expr in exprs:
            self.collect(expr, [], out)
        return out

    def collect(self, expr, path: list, out: list) -> None:
        kind = tw.node_type(expr)
        if kind in tw.LOAD_NODES:
            for index in expr.indices:
                self.collect(index, path, out)
            self.access(tw.load_buffer(expr), expr.indices, path, out)
        elif (kind == "Call" and tw.call_name(expr) == tw.IF_THEN_ELSE) or kind == "Select":
            cond, yes, no = (expr.args if kind == "Call" else (expr.condition, expr.true_value, expr.false_value))
            self.collect(cond, path, out)
            self.collect(yes, path + [cond], out)
            self.collect(no, path + [tirx.Not(cond)], out)
        else:
            for child in tw.expr_children(expr):
                self.collect(child, path, out)
            if kind in tw.INT_DIVISIONS and "int" in str(expr.ty):
                self.require(expr.b != 0, path, out, DIVISION_MESSAGE + str(expr))

    def access(self, buffer, indices, path: list, out: list) -> None:
        for index, extent in zip(indices, buffer.shape):
            self.require(tirx.all(index >= 0, index < extent), path, out,
                         f"{INDEX_MESSAGE}{buffer.name}[{index}] outside [0, {extent})")

    def require(self, cond, path: list, out: list, message: str) -> None:
        with ExitStack() as stack:
            for condition in path:
                stack.enter_context(self.analyzer.constraint_scope(condition))
            if self.analyzer.can_prove(cond):
                return
        if path:
            guard = path[0] if len(path) == 1 else tirx.all(*path)
            cond = tirx.if_then_else(guard, cond, tirx.const(True, "bool"))
        kind = "IndexError" if message.startswith(INDEX_MESSAGE) else "RuntimeError"
        out.append(self.make_assert(cond, tvm.ir.StringImm(kind), [tvm.ir.StringImm(message)], None))
        self.inserted += 1


def guard(flat_func):
    """``flat_func`` with assertions before every access it cannot prove in bounds; returns (func, count)."""
    guarder = _Guarder()
    body = guarder.stmt(flat_func.body)
    return (flat_func if body.same_as(flat_func.body) else flat_func.with_body(body)), guarder.inserted
