"""Kernel -> compiled program for one chip: declarations validated, instructions compiled to closures.

Compiling happens once per (kernel, chip) and is cached in the caller's ``SimCaches`` (:func:`compile_for`).  It validates parameters and
buffers (names, scopes, alignment, capacity), gives every variable an environment slot, and compiles each
instruction through its ISA row, so constant operands are checked and access plans are built before any block
runs.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from npusim.errors.sim import InvalidOperandError, SimulatorError
from npusim.sim.checks import Site, check_capacity
from npusim.sim.dtypes import canonical_dtype, itemsize
from npusim.sim.expr import Const, SlotMap, compile_expr, evaluator
from npusim.sim.isa import ISA, REQUIRED
from npusim.sim.isa.context import CompileContext
from npusim.sim.kernel import BLOCK_IDX, LOCAL_SCOPES, PARAM_KINDS, If, Instr, Kernel, Loop, instr_str

MAX_LOOP_TRIPS = 1 << 31


@dataclass(frozen=True)
class InstrNode:
    """A compiled instruction in the program tree."""

    instr: Any          # CompiledInstr


@dataclass(frozen=True)
class LoopNode:
    """A loop of the program tree: the variable's slot, the kernel's bound expressions, the compiled body."""

    var: str
    slot: int
    begin: Any
    end: Any
    body: tuple


@dataclass(frozen=True)
class IfNode:
    """A branch of the program tree: the kernel's condition expression and both compiled bodies."""

    cond: Any
    then_body: tuple
    else_body: tuple


@dataclass
class CompiledKernel:
    """A kernel ready to run on ``chip``: ``body`` runs one block given an execution context; ``tree`` is the
    same program as nodes (:class:`InstrNode`, :class:`LoopNode`, :class:`IfNode`) for executors that run it
    their own way (:mod:`npusim.sim.lockstep`), which keep what they derive from it in ``derived``."""

    kernel: Kernel
    chip: object
    body: tuple
    statics: tuple
    slots: SlotMap
    view_keys: frozenset
    uses_cube: bool
    scope_high_water: dict
    tree: tuple = ()
    derived: dict = field(default_factory=dict)

    def run_block(self, ctx) -> None:
        for stmt in self.body:
            stmt(ctx)


def compile_for(kernel: Kernel, chip, caches) -> CompiledKernel:
    """The compiled form of ``kernel`` for ``chip``, from ``caches.compiled`` (a runtime's SimCaches) keyed by the
    kernel's identity and the chip's name and overflow mode (which compiling bakes into each instruction)."""
    key = (id(kernel), chip.name, chip.overflow_mode)
    entry = caches.compiled.get(key)
    if entry is not None and entry.kernel is kernel:
        return entry
    return caches.compiled.put(key, compile_kernel(kernel, chip, caches))


def _check_declarations(kernel: Kernel, chip) -> SlotMap:
    slots = SlotMap()
    slots.add(BLOCK_IDX)
    names = set()
    for param in kernel.params:
        if param.kind not in PARAM_KINDS:
            raise InvalidOperandError(f"parameter {param.name}: kind {param.kind!r} not in {PARAM_KINDS}",
                                      kernel=kernel.name)
        canonical_dtype(param.dtype)
        if param.atomic_clean and param.kind == "scalar":
            raise InvalidOperandError(f"parameter {param.name}: a scalar cannot be atomic_clean (only GM tensors "
                                      f"are zeroed before a launch)", kernel=kernel.name)
        names.add(param.name)
        if param.kind == "scalar":
            slots.add(param.name)
    for buf in kernel.buffers:
        if buf.name in names:
            raise InvalidOperandError(f"buffer name {buf.name!r} is used twice", kernel=kernel.name)
        names.add(buf.name)
        if buf.scope not in LOCAL_SCOPES:
            raise InvalidOperandError(f"buffer {buf.name}: scope {buf.scope!r} not in {LOCAL_SCOPES}",
                                      kernel=kernel.name)
        if buf.addr_bytes < 0 or buf.addr_bytes % chip.block_bytes:
            raise InvalidOperandError(f"buffer {buf.name}: address {buf.addr_bytes} is not {chip.block_bytes}-byte "
                                      f"aligned (one block of {chip.name})", kernel=kernel.name)
        size = buf.size_elems * itemsize(canonical_dtype(buf.dtype))
        check_capacity(kernel.name, chip, buf.scope, buf.addr_bytes + size, buf.name)
    for reg in kernel.scalars:
        canonical_dtype(reg.dtype)
        slots.add(reg.name, register=True)
    return slots


def compile_kernel(kernel: Kernel, chip, caches, step_hook=None) -> CompiledKernel:
    """Validate and compile ``kernel`` for ``chip`` (not cached itself: use :func:`compile_for`); ``caches``
    (SimCaches) supplies the plan and tvm_call program caches instructions use.  ``step_hook(ctx, index)``, when
    given, runs before every instruction of a block run (debuggers: TIK's tikdb); such a compile is for the
    block-by-block executor only and is never cached."""
    slots = _check_declarations(kernel, chip)
    view_keys, uses = set(), {}
    kc = CompileContext(kernel, chip, slots, view_keys, uses, caches)
    kc.step_hook = step_hook
    statics = []
    body, tree = _compile_body(kernel.body, kc, statics, [0])
    uses_cube = any(s.pipe == "M" for s in statics) or any(b.scope.startswith("L0") for b in kernel.buffers)
    return CompiledKernel(kernel, chip, body, tuple(statics), slots, frozenset(view_keys), uses_cube, uses, tree)


def _compile_body(stmts, kc: CompileContext, statics: list, counter: list) -> tuple:
    """(closures, tree nodes) of a statement list."""
    compiled, nodes = [], []
    for stmt in stmts:
        if isinstance(stmt, Instr):
            instr = _compile_instr(stmt, kc, counter[0])
            counter[0] += 1
            statics.append(instr.static)
            compiled.append(instr.run if kc.step_hook is None else _stepped(instr.run, kc.step_hook, counter[0] - 1))
            nodes.append(InstrNode(instr))
        elif isinstance(stmt, Loop):
            run, node = _compile_loop(stmt, kc, statics, counter)
            compiled.append(run)
            nodes.append(node)
        elif isinstance(stmt, If):
            run, node = _compile_if(stmt, kc, statics, counter)
            compiled.append(run)
            nodes.append(node)
        else:
            raise InvalidOperandError(f"not a statement: {stmt!r}", kernel=kc.kernel.name)
    return tuple(compiled), tuple(nodes)


def _stepped(run, hook, index: int):
    """``run`` preceded by ``hook(ctx, index)``."""
    def stepped(ctx):
        hook(ctx, index)
        run(ctx)
    return stepped


def _compile_instr(instr: Instr, kc: CompileContext, index: int):
    site = Site(kc.kernel.name, index, instr_str(instr))
    kc.at(site)
    spec = ISA.get(instr.opcode)
    if spec is None:
        raise site.error(InvalidOperandError, f"unknown instruction {instr.opcode!r}")
    given = {name for name, _ in instr.args}
    known = {op.name for op in spec.operands}
    unknown = given - known
    if unknown:
        raise site.error(InvalidOperandError, f"{instr.opcode} has no operand(s) {', '.join(sorted(unknown))}")
    missing = [op.name for op in spec.operands if op.default is REQUIRED and op.name not in given]
    if missing:
        raise site.error(InvalidOperandError, f"{instr.opcode} is missing operand(s) {', '.join(missing)}")
    filled = Instr(instr.opcode, tuple((op.name, instr.arg(op.name, op.default)) for op in spec.operands))
    try:
        return spec.compile(filled, spec, kc)
    except SimulatorError as exc:
        raise exc.locate(kernel=kc.kernel.name, instr_index=index, operands=site.text)


def _loop_slot(kc: CompileContext, name: str) -> int:
    if name in kc.slots.slots:
        if name in kc.slots.registers or name == BLOCK_IDX or kc.kernel.param(name) is not None:
            raise InvalidOperandError(f"loop variable {name!r} clashes with a register, parameter or block_idx",
                                      kernel=kc.kernel.name)
        return kc.slots.slot(name)
    return kc.slots.add(name)


def _expr(kc: CompileContext, value):
    try:
        return compile_expr(value, kc.slots)
    except SimulatorError as exc:
        raise exc.locate(kernel=kc.kernel.name)


def _compile_loop(loop: Loop, kc: CompileContext, statics: list, counter: list):
    slot = _loop_slot(kc, loop.var)
    begin, end = evaluator(_expr(kc, loop.begin)), evaluator(_expr(kc, loop.end))
    body, nodes = _compile_body(loop.body, kc, statics, counter)
    kernel_name, var = kc.kernel.name, loop.var

    def run_loop(ctx):
        env = ctx.env
        low, high = begin(env), end(env)
        if not isinstance(low, int) or not isinstance(high, int) or isinstance(low, bool) or \
                not 0 <= low < MAX_LOOP_TRIPS or not high < MAX_LOOP_TRIPS:
            raise InvalidOperandError(f"loop {var}: bounds must be ints with 0 <= begin, end < 2**31, got "
                                      f"({low!r}, {high!r})", kernel=kernel_name)
        for value in range(low, high):
            env[slot] = value
            for stmt in body:
                stmt(ctx)
    return run_loop, LoopNode(var, slot, loop.begin, loop.end, nodes)


def _compile_if(node: If, kc: CompileContext, statics: list, counter: list):
    cond = _expr(kc, node.cond)
    then_body, then_nodes = _compile_body(node.then_body, kc, statics, counter)
    else_body, else_nodes = _compile_body(node.else_body, kc, statics, counter)
    tree = IfNode(node.cond, then_nodes, else_nodes)
    if isinstance(cond, Const):
        chosen = then_body if cond.value else else_body

        def run_const(ctx):
            for stmt in chosen:
                stmt(ctx)
        return run_const, tree

    def run_if(ctx):
        for stmt in (then_body if cond(ctx.env) else else_body):
            stmt(ctx)
    return run_if, tree
