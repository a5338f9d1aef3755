"""Lowering of ``for`` loops: range / serial / vectorize / parallel / reduce (start, stop, step) and grid.

Loop variables are int32 but *weak* (like the Python ints the numpy emulation iterates with), so
``i + x_int8[j]`` stays int8 and ``x_f16[i] * i`` stays float16.

Every kind becomes a serial TIR loop: the schedule hints carry no meaning for a single CPU thread, serial order
keeps races (``parallel`` loops accumulating into one element) deterministic, and LLVM vectorises inner loops
on its own.
"""
from __future__ import annotations

import ast

from tvm import tirx

from npusim.errors import HybridValueError
from npusim.hybrid.dtypes import is_float
from npusim.hybrid.values import Dyn, const, seq, static_int, to_expr


class LoopLowering:
    """Mixin for :class:`npusim.hybrid.lower_stmt.KernelLowering` (uses its scope, block and fail)."""

    def stmt_For(self, node):
        call = node.iter
        args = [self.expr(a) for a in call.args]
        if call.func.id == "grid":
            return self._grid(node, args)
        start, stop, step = self._range_args(args, node)
        return self._loop(node, start, stop, step)

    def _range_args(self, args: list, node):
        for arg in args:
            integral = static_int(arg) is not None or (isinstance(arg, Dyn) and not is_float(arg.dtype))
            if not integral:
                self.fail(HybridValueError, f"loop bounds must be integers: {ast.unparse(node.iter)}", node)
        if len(args) == 1:
            return 0, args[0], 1
        step = args[2] if len(args) == 3 else 1
        if static_int(step) is None or static_int(step) == 0:
            self.fail(HybridValueError, "a loop step must be a non-zero integer known at compile time", node)
        return args[0], args[1], static_int(step)

    def _loop(self, node, start, stop, step: int):
        """``for target in range(start, stop, step)`` with a fresh int32 loop variable."""
        if not isinstance(node.target, ast.Name):
            self.fail(HybridValueError, "only grid() loops can unpack their variable", node)
        name = node.target.id
        counter = tirx.Var(name, "int32")
        begin = to_expr(start, "int32")
        if step == 1:
            index, low = counter, begin
        else:
            index, low = tirx.Add(begin, tirx.Mul(counter, const(step, "int32"))), const(0, "int32")
        extent = _extent(start, stop, step)
        body = self._with_bindings({name: Dyn(index, weak=True)}, node.body)
        return tirx.For(counter, low, extent, tirx.ForKind.SERIAL, body)

    def _grid(self, node, args: list):
        extents = list(args[0]) if len(args) == 1 and isinstance(args[0], tuple) else args
        counters = [tirx.Var(f"{_target_label(node.target)}_{axis}", "int32") for axis in range(len(extents))]
        indices = tuple(Dyn(v, weak=True) for v in counters)
        if isinstance(node.target, ast.Name):
            bindings = {node.target.id: indices}
        else:
            names = [elt.id for elt in node.target.elts]
            if len(names) != len(extents):
                self.fail(HybridValueError, f"grid of {len(extents)} axes unpacked into {len(names)} names", node)
            bindings = dict(zip(names, indices))
        stmt = self._with_bindings(bindings, node.body)
        for counter, extent in reversed(list(zip(counters, extents))):
            if static_int(extent) is None and not (isinstance(extent, Dyn) and not is_float(extent.dtype)):
                self.fail(HybridValueError, "grid extents must be integers", node)
            stmt = tirx.For(counter, const(0, "int32"), _extent(0, extent, 1), tirx.ForKind.SERIAL, stmt)
        return stmt

    def _with_bindings(self, bindings: dict, body: list):
        """Lower ``body`` with loop variables bound; restore what the names meant before."""
        saved = {name: self.scope.get(name) for name in bindings}
        self.scope.update(bindings)
        try:
            return seq([self.stmt(s) for s in body])
        finally:
            for name, old in saved.items():
                if old is None:
                    self.scope.pop(name, None)
                else:
                    self.scope[name] = old


def _extent(start, stop, step: int):
    """Trip count of range(start, stop, step) as an int32 expression (a constant when the bounds are)."""
    low, high = static_int(start), static_int(stop)
    if low is not None and high is not None:
        return const(len(range(low, high, step)), "int32")
    begin, end = to_expr(start, "int32"), to_expr(stop, "int32")
    span = tirx.Sub(end, begin) if step > 0 else tirx.Sub(begin, end)
    if abs(step) != 1:
        span = tirx.floordiv(tirx.Add(span, const(abs(step) - 1, "int32")), const(abs(step), "int32"))
    return tirx.Max(span, const(0, "int32"))


def _target_label(target) -> str:
    if isinstance(target, ast.Name):
        return target.id
    return "_".join(elt.id for elt in target.elts)
