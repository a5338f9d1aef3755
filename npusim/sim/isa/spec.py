"""What an ISA row is (:class:`InstrSpec`) and what compiling one instruction yields (:class:`CompiledInstr`)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Optional

REQUIRED = object()  # marks an operand without a default

# Operand kinds: "tensor" (BufRef), "int" (int expression), "mask" (count or (high, low) pair), "scalar" (number
# expression), "choice" (one of OperandSpec.choices), "bool", "sel" (BufRef or the string "CMPMASK"), "name",
# "args" (a tuple of BufRefs and expressions, for tvm_call).
OPERAND_KINDS = frozenset({"tensor", "int", "mask", "scalar", "choice", "bool", "sel", "name", "args"})


@dataclass(frozen=True)
class OperandSpec:
    """One named operand of an instruction row."""

    name: str
    kind: str
    default: Any = REQUIRED
    choices: tuple = ()


@dataclass(frozen=True)
class InstrSpec:
    """One row of the instruction table.

    opcode: the instruction name.  family: which module implements it.  operands: the operand list, in the order
    positional arguments bind (TIK's order).  compile: ``compile(instr, spec, kc) -> CompiledInstr`` (family code).
    semantics: the row's numpy meaning (family-specific signature), None for moves/sync.  cost_kind / cost_key:
    which cost formula and which chip cost row price it.  doc: one line, plus any departure from numpy.
    """

    opcode: str
    family: str
    operands: tuple
    compile: Callable
    semantics: Optional[Callable]
    cost_kind: str
    cost_key: str
    doc: str = ""

    def operand(self, name: str) -> Optional[OperandSpec]:
        return next((o for o in self.operands if o.name == name), None)


@dataclass(frozen=True)
class InstrStatic:
    """What the cost model needs to know about one compiled instruction (fixed for the kernel and chip).

    pipe: the pipe that executes it.  cost_kind: "vector" | "move" | "cube" | "scalar" | "set_flag" | "wait_flag"
    | "barrier".  cost_key: chip cost-row key.  dtype: operand dtype (per-dtype vector costs, mmad kstep).
    path: (src_scope, dst_scope) for moves.  flag: (src_pipe, dst_pipe, event_id) for set/wait (event may be -1
    when given at run time: the record then carries it).  barrier_pipe: for pipe_barrier.
    """

    index: int
    opcode: str
    pipe: str
    cost_kind: str
    cost_key: str
    dtype: str = ""
    path: Optional[tuple] = None
    flag: Optional[tuple] = None
    barrier_pipe: Optional[str] = None
    text: str = ""


@dataclass
class CompiledInstr:
    """A compiled instruction: ``run(ctx)`` executes it on a core and appends its trace record.

    ``batch(b)``: the same instruction for every active block of a lockstep batch (:mod:`npusim.sim.lockstep`),
    None when the family has no batched form.  ``local_only``: the instruction touches no GM and no per-block
    state beyond local memory, registers, CMPMASK and its trace record, so a batch may run ``run`` block by
    block instead.  ``gm_writes``: indices of the GM parameters it may write.
    """

    static: InstrStatic
    run: Callable
    extra: dict = field(default_factory=dict)
    batch: Optional[Callable] = None
    local_only: bool = False
    gm_writes: tuple = ()
