"""The scalar-pipe price of a ``tvm_call`` program: how many ALU operations and memory accesses one run makes.

The program is first lowered to flat loops (:func:`tir_walk.flatten`, no vectorisation: the AI core's scalar unit
runs one element at a time), then counted statically:

* every arithmetic, comparison, logical, cast or select node, and every intrinsic call (``exp``, ``sqrt`` ...),
  is **one ALU operation** - in value expressions and in index arithmetic alike (the scalar unit computes
  addresses too).  Transcendental calls are therefore a lower bound: no public figure prices them on the
  AI core's scalar unit.
* every buffer load and every buffer store is **one scalar memory access**.
* a loop runs its body ``extent`` times and adds one ALU operation per iteration (increment, compare, branch).
  An extent that depends on outer loop variables counts as the mean of its bounds (exact when it is linear in
  them, e.g. a triangular loop).
* ``if c: A else: B`` counts the condition, then: when ``c`` is ``v == k`` for a loop variable ``v`` of extent
  ``n`` (the init of a reduction), ``A`` for 1/n of the runs and ``B`` for the rest; otherwise the costlier arm
  (an upper bound).  ``if_then_else``/``select`` expressions likewise.  A ``while`` loop (no TE or hybrid kernel
  emits one) counts its body once.

The instruction then costs ``alu_ops * scalar_costs.alu_cycles + mem_accesses * scalar_costs.mem_cycles`` cycles
of the chip in use (see :mod:`npusim.sim.cost`).  Scalar accesses to GM are priced like scalar UB accesses, i.e.
as if the scalar data cache hits; real GM latencies would make the scalar pipe slower still.
"""
from __future__ import annotations

from dataclasses import dataclass

from npusim.errors.sim import InvalidOperandError
from npusim.sim.isa.tvm_call import tir_walk as tw


@dataclass(frozen=True)
class Price:
    """Operation counts of one run: ALU operations and scalar memory accesses (floats: weighted branches)."""

    alu_ops: float = 0.0
    mem_accesses: float = 0.0

    def __add__(self, other: "Price") -> "Price":
        return Price(self.alu_ops + other.alu_ops, self.mem_accesses + other.mem_accesses)

    def scaled(self, factor: float) -> "Price":
        return Price(self.alu_ops * factor, self.mem_accesses * factor)

    def costlier(self, other: "Price") -> "Price":
        return Price(max(self.alu_ops, other.alu_ops), max(self.mem_accesses, other.mem_accesses))


ALU = Price(1.0, 0.0)
MEM = Price(0.0, 1.0)
FREE = Price()


class _Pricer:
    def __init__(self):
        from tvm.sym.analyzer import Analyzer
        self.analyzer = Analyzer()
        self.extents: dict = {}   # loop variable -> constant extent (for the v == k branch rule)

    # -- statements ---------------------------------------------------------------------------------------------
    def stmt(self, node) -> Price:
        kind = tw.node_type(node)
        if kind == "SeqStmt":
            return sum((self.stmt(s) for s in node.seq), FREE)
        if kind == "For":
            return self.loop(node)
        if kind == "IfThenElse":
            orelse = self.stmt(node.else_case) if node.else_case is not None else FREE
            return self.expr(node.condition) + self.branches(node.condition, self.stmt(node.then_case), orelse)
        if kind == "BufferStore":
            return sum((self.expr(i) for i in node.indices), self.expr(node.value)) + MEM
        if kind == "Bind":
            tw.bind_quietly(self.analyzer, node.var, node.value)
            return self.expr(node.value)
        if kind == "Evaluate":
            return self.expr(node.value)
        if kind == "AssertStmt":
            return self.expr(node.condition)
        if kind == "While":
            return self.expr(node.condition) + self.stmt(node.body)
        if kind == "AttrStmt":
            return self.stmt(node.body)
        if kind in ("DeclBuffer", "AllocBuffer", "Break", "Continue"):
            return FREE
        raise InvalidOperandError(f"tvm_call: cannot price TIR statement {kind}")

    def loop(self, node) -> Price:
        trips = self.trip_count(node)
        tw.bind_quietly(self.analyzer, node.loop_var, tw.loop_range(node))
        if isinstance(trips, int):
            self.extents[node.loop_var] = trips
        body = self.stmt(node.body)
        self.extents.pop(node.loop_var, None)
        return (body + ALU).scaled(trips)

    def trip_count(self, node):
        extent = node.extent
        if tw.node_type(extent) == "IntImm":
            return max(0, int(extent.value))
        bound = self.analyzer.const_int_bound(extent)
        low, high = max(0, int(bound.min_value)), int(bound.max_value)
        if high >= 1 << 40:
            raise InvalidOperandError(f"tvm_call: the extent {extent} of loop {node.loop_var} has no finite bound "
                                      "(npusim prices loops with shape-determined extents only)")
        return (low + max(low, high)) / 2

    def branches(self, condition, then_price: Price, else_price: Price) -> Price:
        share = self.then_share(condition)
        if share is None:
            return then_price.costlier(else_price)
        return then_price.scaled(share) + else_price.scaled(1.0 - share)

    def then_share(self, condition):
        """1/n when ``condition`` is ``v == k`` for a loop variable v of constant extent n; else None."""
        if tw.node_type(condition) != "EQ":
            return None
        for side in (condition.a, condition.b):
            for var, extent in self.extents.items():
                if side.same_as(var) and extent > 0:
                    return 1.0 / extent
        return None

    # -- expressions --------------------------------------------------------------------------------------------
    def expr(self, node) -> Price:
        kind = tw.node_type(node)
        if kind in ("IntImm", "FloatImm", "StringImm", "Var", "SizeVar"):
            return FREE
        if kind in tw.LOAD_NODES:
            return sum((self.expr(i) for i in node.indices), MEM)
        if kind == "Call":
            return self.call(node)
        if kind == "Select":
            return ALU + self.expr(node.condition) + self.branches(node.condition, self.expr(node.true_value),
                                                                   self.expr(node.false_value))
        if kind == "Let":
            tw.bind_quietly(self.analyzer, node.var, node.value)
            return self.expr(node.value) + self.expr(node.body)
        own = FREE if kind in ("Ramp", "Broadcast", "Shuffle") else ALU
        return sum((self.expr(c) for c in tw.expr_children(node)), own)

    def call(self, node) -> Price:
        name = tw.call_name(node)
        args = list(node.args)
        if name == tw.IF_THEN_ELSE and len(args) == 3:
            return ALU + self.expr(args[0]) + self.branches(args[0], self.expr(args[1]), self.expr(args[2]))
        own = FREE if name in tw.FREE_CALLS else ALU
        return sum((self.expr(a) for a in args), own)


def price(flat_func) -> Price:
    """Counts of one run of ``flat_func`` (a prim func already lowered by :func:`tir_walk.flatten`)."""
    return _Pricer().stmt(flat_func.body)
