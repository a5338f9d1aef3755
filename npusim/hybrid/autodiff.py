"""The automatic backward of a hybrid kernel: reverse-mode differentiation of its lowered TIR.

MindSpore gives Custom ops of func_type "hybrid" (and akg functions written in the Hybrid DSL) without a ``bprop``
an automatic one (``Custom._hybrid_autodiff``): a second kernel, built by AKG from the same function, maps
(inputs, out, dout) to one gradient per input.  npusim derives that kernel from the forward kernel's TIR
(:func:`derive_backward`), as an adjoint program of two sweeps:

1. the forward body, which also records on a *tape* every value a store overwrites that the derivative will
   need again (and branch conditions that the body changes);
2. the reverse sweep: statements in reverse order, loops run backwards.  Each store ``B[i] = f(...)`` takes its
   adjoint ``g = adj_B[i]``, clears it, restores ``B[i]``'s previous value from the tape, and adds
   ``g * df/dx`` into the adjoint of every element ``x`` that ``f`` reads (rules: :mod:`.grad_rules`).  Since
   every overwrite is undone in exact reverse order, each statement is differentiated at the very state it ran
   in, so loops, local variables, scratch tensors and in-place updates are all handled.

Two common patterns skip the tape: accumulations ``B[i] = B[i] ± e`` (where ``e`` does not read ``B``) pass the
adjoint through and, if ``B`` is read elsewhere, are undone by subtracting ``e``; and buffers whose values no
statement reads back (most outputs) need no restoring at all.

Not differentiable (raises :class:`NotDifferentiable` with the reason): a loop whose bounds read a tensor its own
body writes, a store whose index reads the tensor it stores to, statements other than loops, ifs and stores,
float operations without a rule (:mod:`.grad_rules`), and kernels whose tape would exceed ``TAPE_LIMIT_BYTES``.
Gradients flow to float inputs only (integer inputs get zeros) and not to attributes.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import tvm
import tvm_ffi
from tvm import tirx

from npusim.hybrid.dtypes import is_float
from npusim.hybrid.grad_rules import LOAD, NotDifferentiable, backprop, dtype_of, grad_dtype
from npusim.hybrid.values import const, declare_buffer, seq, zero_fill

TAPE_LIMIT_BYTES = 1 << 30
_MAX_TRIP_COUNT = 1 << 30


@dataclass(frozen=True)
class BackwardKernel:
    """The adjoint program of one lowered kernel.

    prim_func params: forward inputs, forward outputs (zero-filled work buffers), adjoints of the float inputs,
    adjoints of the float outputs, tapes, then the forward's float attribute scalars.  ``grad_inputs`` /
    ``grad_outputs``: (index, gradient dtype) of the inputs / outputs that have adjoints.  ``tapes``: (elements,
    dtype) of each tape.  The other fields are the forward kernel's.
    """

    prim_func: object
    symbol: str
    in_specs: tuple
    out_specs: tuple
    grad_inputs: tuple
    grad_outputs: tuple
    tapes: tuple
    returns: tuple
    written_inputs: frozenset
    float_attrs: tuple
    default_attrs: tuple


def derive_backward(lowered, in_shapes, in_dtypes) -> BackwardKernel:
    """The BackwardKernel of ``lowered`` (a LoweredKernel for inputs of these shapes/dtypes)."""
    return _Deriver(lowered, in_shapes, in_dtypes).derive()


class _Buffers:
    """Buffers found by identity (TIR nodes compare by ``same_as``), each with an optional adjoint."""

    def __init__(self):
        self.entries = []   # [buffer, adjoint or None]

    def find(self, buffer):
        for entry in self.entries:
            if entry[0].same_as(buffer):
                return entry
        return None

    def add(self, buffer, adjoint):
        self.entries.append([buffer, adjoint])

    def adjoint(self, buffer):
        entry = self.find(buffer)
        return entry[1] if entry else None


class _Deriver:
    def __init__(self, lowered, in_shapes, in_dtypes):
        self.lowered = lowered
        func = lowered.prim_func
        params = list(func.params)
        n_out, n_attr = len(lowered.out_specs), len(lowered.float_attrs)
        n_in = len(params) - n_out - n_attr
        self.inputs, self.outputs = params[:n_in], params[n_in:n_in + n_out]
        self.attr_vars = params[n_in + n_out:]
        self.in_specs = tuple((tuple(int(d) for d in s), str(t)) for s, t in zip(in_shapes, in_dtypes))
        body = func.body
        stmts = list(body.seq) if isinstance(body, tirx.SeqStmt) else [body]
        self.allocs = [s for s in stmts if isinstance(s, tirx.AllocBuffer)]
        self.main = seq([s for s in stmts if not isinstance(s, tirx.AllocBuffer)])
        self.buffers = _Buffers()
        self.tapes = []        # (buffer, elements, dtype)
        self.value_read = []   # buffers whose values some statement reads back

    # ---- driver -------------------------------------------------------------------------------------------------
    def derive(self) -> BackwardKernel:
        grad_inputs = self._declare_adjoints(self.inputs, "input")
        grad_outputs = self._declare_adjoints(self.outputs, "output")
        self._declare_adjoints([a.buffer for a in self.allocs], "local")
        self._find_value_reads(self.main)
        forward, reverse = self._transform(self.main, [])
        total = sum(n * np.dtype(d).itemsize for _, n, d in self.tapes)
        if total > TAPE_LIMIT_BYTES:
            raise NotDifferentiable(f"its backward would need a {total}-byte tape of overwritten values "
                                    f"(limit {TAPE_LIMIT_BYTES})")
        adjoint_locals = [self.buffers.adjoint(a.buffer) for a in self.allocs
                          if self.buffers.adjoint(a.buffer) is not None]
        body = seq(list(self.allocs) + [tirx.AllocBuffer(b) for b in adjoint_locals]
                   + [_zero(b) for b in adjoint_locals] + [forward] + ([reverse] if reverse is not None else []))
        params = (list(self.inputs) + list(self.outputs)
                  + [self.buffers.adjoint(self.inputs[i]) for i, _ in grad_inputs]
                  + [self.buffers.adjoint(self.outputs[k]) for k, _ in grad_outputs]
                  + [t for t, _, _ in self.tapes] + list(self.attr_vars))
        symbol = f"{self.lowered.symbol}_backward"
        prim_func = (tirx.PrimFunc(params, body).with_attr("global_symbol", symbol).with_attr("tir.noalias", True))
        low = self.lowered
        return BackwardKernel(prim_func, symbol, self.in_specs, low.out_specs, tuple(grad_inputs),
                              tuple(grad_outputs), tuple((n, d) for _, n, d in self.tapes), low.returns,
                              low.written_inputs, low.float_attrs, low.default_attrs)

    def _declare_adjoints(self, buffers, role) -> list:
        """Register ``buffers``; float ones get an adjoint buffer.  Returns [(index, gradient dtype)]."""
        with_adjoints = []
        for index, buffer in enumerate(buffers):
            dtype = str(buffer.dtype)
            adjoint = None
            if is_float(dtype):
                shape = tuple(int(d) for d in buffer.shape)
                adjoint = declare_buffer(f"d_{buffer.name}", shape, grad_dtype(dtype))
                with_adjoints.append((index, grad_dtype(dtype)))
            self.buffers.add(buffer, adjoint)
        return with_adjoints

    # ---- analysis -----------------------------------------------------------------------------------------------
    def _find_value_reads(self, stmt) -> None:
        """Collect the buffers whose values are read anywhere but as the self operand of an accumulation."""
        for node in _statements(stmt):
            if isinstance(node, tirx.BufferStore):
                additive = _accumulation(node)
                value = additive[1] if additive else node.value
                exprs = list(node.indices) + [value]
            elif isinstance(node, tirx.For):
                exprs = [node.min, node.extent]
            elif isinstance(node, tirx.IfThenElse):
                exprs = [node.condition]
            else:
                continue
            for expr in exprs:
                for load in _loads(expr):
                    if not any(b.same_as(load.source) for b in self.value_read):
                        self.value_read.append(load.source)

    def _is_value_read(self, buffer) -> bool:
        return any(b.same_as(buffer) for b in self.value_read)

    # ---- the two sweeps -----------------------------------------------------------------------------------------
    def _transform(self, stmt, loops):
        """(forward statement with tape writes, reverse statement or None) of ``stmt`` inside ``loops`` (the
        enclosing For nodes, outermost first)."""
        if isinstance(stmt, tirx.SeqStmt):
            pairs = [self._transform(s, loops) for s in stmt.seq]
            reverse = [r for _, r in reversed(pairs) if r is not None]
            return seq([f for f, _ in pairs]), seq(reverse) if reverse else None
        if isinstance(stmt, tirx.For):
            return self._loop(stmt, loops)
        if isinstance(stmt, tirx.IfThenElse):
            return self._branch(stmt, loops)
        if isinstance(stmt, tirx.BufferStore):
            return self._store(stmt, loops)
        if isinstance(stmt, tirx.Evaluate):
            return stmt, None
        raise NotDifferentiable(f"the statement {type(stmt).__name__} has no reverse")

    def _loop(self, loop, loops):
        if loop.step is not None and not (isinstance(loop.step, tirx.IntImm) and int(loop.step.value) == 1):
            raise NotDifferentiable(f"loop '{loop.loop_var.name}' has a step")
        written = _written(loop.body)
        for expr in (loop.min, loop.extent):
            for load in _loads(expr):
                if any(b.same_as(load.source) for b in written):
                    raise NotDifferentiable(f"the bounds of loop '{loop.loop_var.name}' read tensor "
                                            f"'{load.source.name}', which the loop itself writes")
        forward, reverse = self._transform(loop.body, loops + [loop])
        forward = tirx.For(loop.loop_var, loop.min, loop.extent, tirx.ForKind.SERIAL, forward)
        if reverse is None:
            return forward, None
        backwards = tirx.Var(f"{loop.loop_var.name}_rev", str(loop.loop_var.ty))
        last = _last_index(loop)
        reverse = _substitute(reverse, loop.loop_var, tirx.Sub(last, backwards))
        return forward, tirx.For(backwards, const(0, str(backwards.ty)), loop.extent, tirx.ForKind.SERIAL, reverse)

    def _branch(self, node, loops):
        then_f, then_r = self._transform(node.then_case, loops)
        else_f, else_r = (self._transform(node.else_case, loops) if node.else_case is not None else (None, None))
        condition, record = node.condition, []
        written = _written(node.then_case) + (_written(node.else_case) if node.else_case is not None else [])
        if any(any(b.same_as(load.source) for b in written) for load in _loads(condition)):
            tape, slot = self._tape("cond", "int8", loops)
            record = [tirx.BufferStore(tape, tirx.Cast("int8", condition), [slot])]
            condition = tirx.NE(tirx.BufferLoad(tape, [slot]), const(0, "int8"))
        forward = seq(record + [tirx.IfThenElse(node.condition, then_f, else_f)])
        if then_r is None and else_r is None:
            return forward, None
        return forward, tirx.IfThenElse(condition, then_r if then_r is not None else seq([]), else_r)

    def _store(self, store, loops):
        buffer, indices = store.buffer, list(store.indices)
        if any(load.source.same_as(buffer) for index in indices for load in _loads(index)):
            raise NotDifferentiable(f"a store into '{buffer.name}' computes its index from '{buffer.name}' itself")
        adjoint = self.buffers.adjoint(buffer)
        restore = self._is_value_read(buffer)
        additive = _accumulation(store)
        g = tirx.Var(f"g_{buffer.name}", grad_dtype(str(buffer.dtype))) if adjoint is not None else None
        reverse = [tirx.Bind(g, tirx.BufferLoad(adjoint, indices))] if g is not None else []
        if additive is not None:
            sign, term = additive
            if g is not None:
                reverse += self._contributions(term, g if sign > 0 else tirx.Sub(const(0, str(g.ty)), g))
            if restore:
                undo = tirx.Sub if sign > 0 else tirx.Add
                reverse.append(tirx.BufferStore(buffer, undo(tirx.BufferLoad(buffer, indices), term), indices))
            return store, seq(reverse) if reverse else None
        forward = store
        if restore:
            tape, slot = self._tape(buffer.name, str(buffer.dtype), loops)
            forward = seq([tirx.BufferStore(tape, tirx.BufferLoad(buffer, indices), [slot]), store])
        if g is not None:
            reverse.append(tirx.BufferStore(adjoint, const(0, str(adjoint.dtype)), indices))
        if restore:
            reverse.append(tirx.BufferStore(buffer, tirx.BufferLoad(tape, [slot]), indices))
        if g is not None:
            reverse += self._contributions(store.value, g)
        return forward, seq(reverse) if reverse else None

    def _contributions(self, value, g) -> list:
        stores = []
        for load, contribution in backprop(value, g):
            adjoint = self.buffers.adjoint(load.source)
            if adjoint is None:
                continue
            indices = list(load.indices)
            total = tirx.Add(tirx.BufferLoad(adjoint, indices), _cast(contribution, str(adjoint.dtype)))
            stores.append(tirx.BufferStore(adjoint, total, indices))
        return stores

    def _tape(self, label: str, dtype: str, loops):
        """A new tape for a statement inside ``loops``: (buffer, the slot this iteration writes)."""
        elements, slot = 1, None
        for depth, loop in enumerate(loops):
            var, low, bound = loop.loop_var, loop.min, _trip_bound(loop, loops[:depth])
            offset = var if isinstance(low, tirx.IntImm) and int(low.value) == 0 else tirx.Sub(var, low)
            slot = offset if slot is None else tirx.Add(tirx.Mul(slot, const(bound, "int32")), offset)
            elements *= bound
        slot = const(0, "int32") if slot is None else slot
        if elements > _MAX_TRIP_COUNT:
            raise NotDifferentiable(f"its backward would need a tape of {elements} elements")
        tape = declare_buffer(f"tape{len(self.tapes)}_{label}", (max(elements, 1),), dtype)
        self.tapes.append((tape, max(elements, 1), dtype))
        return tape, slot


# ---- helpers ----------------------------------------------------------------------------------------------------
def _cast(expr, dtype: str):
    return expr if dtype_of(expr) == dtype else tirx.Cast(dtype, expr)


def _last_index(loop):
    """min + extent - 1 of ``loop`` (a constant when both are)."""
    dtype = str(loop.loop_var.ty)
    if isinstance(loop.min, tirx.IntImm) and isinstance(loop.extent, tirx.IntImm):
        return const(int(loop.min.value) + int(loop.extent.value) - 1, dtype)
    return tirx.Sub(tirx.Add(loop.min, loop.extent), const(1, dtype))


def _zero(buffer):
    return zero_fill(_NamedShape(buffer))


class _NamedShape:
    """The view of a buffer :func:`npusim.hybrid.values.zero_fill` needs."""

    def __init__(self, buffer):
        self.name, self.buffer, self.dtype = buffer.name, buffer, str(buffer.dtype)
        self.shape = tuple(int(d) for d in buffer.shape)


def _accumulation(store):
    """(sign, term) when ``store`` is ``B[i] = B[i] + term`` / ``term + B[i]`` / ``B[i] - term`` with ``term``
    not reading B; else None."""
    value = store.value

    def is_self(expr):
        return (isinstance(expr, LOAD) and expr.source.same_as(store.buffer)
                and tvm_ffi.structural_equal(list(expr.indices), list(store.indices)))

    candidates = []
    if isinstance(value, tirx.Add):
        candidates = [(value.a, value.b, 1), (value.b, value.a, 1)]
    elif isinstance(value, tirx.Sub):
        candidates = [(value.a, value.b, -1)]
    for own, term, sign in candidates:
        if is_self(own) and not any(load.source.same_as(store.buffer) for load in _loads(term)):
            return sign, term
    return None


def _children(expr) -> list:
    if isinstance(expr, LOAD):
        return list(expr.indices)
    if isinstance(expr, tirx.Select):
        return [expr.condition, expr.true_value, expr.false_value]
    if isinstance(expr, tirx.Cast):
        return [expr.value]
    if isinstance(expr, tirx.Not):
        return [expr.a]
    if isinstance(expr, tvm.ir.Call):
        return [a for a in expr.args if not isinstance(a, tvm.ir.StringImm)]
    if hasattr(expr, "a") and hasattr(expr, "b"):
        return [expr.a, expr.b]
    return []


def _loads(expr) -> list:
    """Every BufferLoad inside ``expr`` (itself included)."""
    found, pending = [], [expr]
    while pending:
        node = pending.pop()
        if isinstance(node, LOAD):
            found.append(node)
        pending.extend(_children(node))
    return found


def _statements(stmt):
    """``stmt`` and every statement nested in it."""
    pending = [stmt]
    while pending:
        node = pending.pop()
        if node is None:
            continue
        yield node
        if isinstance(node, tirx.SeqStmt):
            pending.extend(node.seq)
        elif isinstance(node, tirx.For):
            pending.append(node.body)
        elif isinstance(node, tirx.IfThenElse):
            pending.extend([node.then_case, node.else_case])


def _written(stmt) -> list:
    return [node.buffer for node in _statements(stmt) if isinstance(node, tirx.BufferStore)]


def _trip_bound(loop, outer) -> int:
    """An upper bound of ``loop``'s trip count given the ranges of the ``outer`` loops (sizes its tapes)."""
    if isinstance(loop.extent, tirx.IntImm):
        return max(int(loop.extent.value), 0)
    if _loads(loop.extent) or _loads(loop.min):
        raise NotDifferentiable(f"the trip count of loop '{loop.loop_var.name}' depends on tensor data, so the "
                                "values it overwrites cannot be recorded for the backward")
    analyzer = tvm.sym.Analyzer()
    for enclosing in outer:
        analyzer.bind(enclosing.loop_var, tvm.ir.Range.from_min_extent(enclosing.min, enclosing.extent))
    bound = analyzer.const_int_bound(loop.extent).max_value
    if bound >= _MAX_TRIP_COUNT:
        raise NotDifferentiable(f"the trip count of loop '{loop.loop_var.name}' has no bound")
    return max(int(bound), 0)


def _substitute(stmt, var, replacement):
    return tvm_ffi.structural_map(stmt, (tirx.Var, lambda v: replacement if v.same_as(var) else v))
