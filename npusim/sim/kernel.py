"""The kernel format: what a simulated AI-core program is, as plain frozen data.

A :class:`Kernel` has parameters (GM tensors, scalars, workspaces), local buffers placed in scopes (UB, L1, L0A,
L0B, L0C) at fixed byte addresses, scalar registers, and a body: a tree of :class:`Instr`, :class:`Loop` and
:class:`If`.  Every block of a launch runs the same body; the reserved variable ``block_idx`` tells blocks apart.

Numbers in operands are *expressions*: Python ints/floats/bools, :class:`Var` (a loop variable, ``block_idx``, a
scalar register or a scalar parameter), :class:`BinOp`, :class:`UnOp` and :class:`Cast`.  Tensor operands are
:class:`BufRef` (a buffer or GM parameter name plus an element offset, optionally reinterpreted as another dtype).

Kernels serialise to JSON and to a small binary file (magic + version + zlib JSON): see :mod:`npusim.sim.kernel_io`.
"""
from __future__ import annotations

from dataclasses import dataclass
from math import prod
from typing import Any, Iterator, Optional, Union

FORMAT_VERSION = 1
BLOCK_IDX = "block_idx"
LOCAL_SCOPES = ("UB", "L1", "L0A", "L0B", "L0C")
PARAM_KINDS = ("gm", "scalar", "workspace")

BIN_OPS = frozenset({"add", "sub", "mul", "floordiv", "truediv", "mod", "min", "max", "and", "or", "xor", "shl",
                     "shr", "lt", "le", "gt", "ge", "eq", "ne", "land", "lor"})
UN_OPS = frozenset({"neg", "abs", "bnot", "lnot", "sqrt"})


@dataclass(frozen=True)
class Var:
    """A named value: loop variable, ``block_idx``, scalar register or scalar parameter."""

    name: str


@dataclass(frozen=True)
class BinOp:
    """``lhs <op> rhs``; op in :data:`BIN_OPS` (integer ops use C semantics: floordiv/mod of non-negatives)."""

    op: str
    lhs: Any
    rhs: Any


@dataclass(frozen=True)
class UnOp:
    """``<op> arg``; op in :data:`UN_OPS`."""

    op: str
    arg: Any


@dataclass(frozen=True)
class Cast:
    """``arg`` converted to ``dtype`` (ints wrap, floats round to the dtype)."""

    dtype: str
    arg: Any


Expr = Union[int, float, bool, Var, BinOp, UnOp, Cast]


@dataclass(frozen=True)
class BufRef:
    """A tensor operand: element ``offset`` (in ``dtype`` elements) of a buffer or GM parameter ``buffer``.

    dtype None means the buffer's own dtype; another dtype reinterprets the bytes (TIK ``reinterpret_cast_to``).
    """

    buffer: str
    offset: Any = 0
    dtype: Optional[str] = None


@dataclass(frozen=True)
class Param:
    """A kernel argument.  kind "gm": a device pointer to ``shape`` elements of ``dtype``; "workspace": GM scratch
    the runtime allocates when the caller gives none; "scalar": a number of ``dtype`` (shape ()).

    ``atomic_clean``: the runtime zeroes the tensor's bytes before every launch (CANN's "atomic clean", the 1s
    of a kernel JSON's "parameters"), for kernels whose blocks atomically add their results into it.
    """

    name: str
    kind: str
    dtype: str
    shape: tuple = ()
    atomic_clean: bool = False

    @property
    def size_elems(self) -> int:
        return int(prod(self.shape)) if self.shape else 1

    @property
    def is_tensor(self) -> bool:
        return self.kind in ("gm", "workspace")


@dataclass(frozen=True)
class Buffer:
    """A local tensor: ``shape`` elements of ``dtype`` at byte ``addr_bytes`` of scope ``scope`` (per core)."""

    name: str
    scope: str
    dtype: str
    shape: tuple
    addr_bytes: int

    @property
    def size_elems(self) -> int:
        return int(prod(self.shape)) if self.shape else 1


@dataclass(frozen=True)
class ScalarReg:
    """A scalar register of ``dtype``; reading it before any write is an error (TIK: "uninitialized Scalar")."""

    name: str
    dtype: str


@dataclass(frozen=True)
class Instr:
    """One instruction: ``opcode`` (a key of the ISA table) and its named operands in the row's order."""

    opcode: str
    args: tuple

    def arg(self, name: str, default=None):
        """Operand ``name`` (default when absent)."""
        for key, value in self.args:
            if key == name:
                return value
        return default

    def arg_dict(self) -> dict:
        return dict(self.args)


@dataclass(frozen=True)
class Loop:
    """``for var in range(begin, end): body`` (bounds evaluated once, at loop entry)."""

    var: str
    begin: Any
    end: Any
    body: tuple


@dataclass(frozen=True)
class If:
    """``if cond: then_body else: else_body``."""

    cond: Any
    then_body: tuple
    else_body: tuple = ()


Stmt = Union[Instr, Loop, If]


@dataclass(frozen=True)
class Kernel:
    """A complete kernel.  ``block_dim`` is the default number of blocks of a launch."""

    name: str
    params: tuple
    buffers: tuple
    scalars: tuple
    body: tuple
    block_dim: int = 1
    version: int = FORMAT_VERSION

    def param(self, name: str) -> Optional[Param]:
        return next((p for p in self.params if p.name == name), None)

    def buffer(self, name: str) -> Optional[Buffer]:
        return next((b for b in self.buffers if b.name == name), None)

    def instructions(self) -> Iterator[tuple]:
        """(index, Instr) pairs in pre-order; the index is the one errors and traces use."""
        return iter_instrs(self.body)

    def to_json(self) -> str:
        from npusim.sim.kernel_io import kernel_to_json
        return kernel_to_json(self)

    def to_bytes(self) -> bytes:
        from npusim.sim.kernel_io import kernel_to_bytes
        return kernel_to_bytes(self)

    def save(self, path) -> None:
        """Write the binary kernel file (magic, version, zlib-compressed JSON) to ``path``."""
        from npusim.sim.kernel_io import save_kernel
        save_kernel(self, path)


def iter_instrs(body: tuple) -> Iterator[tuple]:
    """Walk a body in pre-order (then-branch before else-branch), yielding (index, Instr)."""
    counter = [0]

    def walk(stmts):
        for stmt in stmts:
            if isinstance(stmt, Instr):
                yield counter[0], stmt
                counter[0] += 1
            elif isinstance(stmt, Loop):
                yield from walk(stmt.body)
            else:
                yield from walk(stmt.then_body)
                yield from walk(stmt.else_body)

    return walk(body)


def expr_str(expr) -> str:
    """Render an expression as Python-like text (for messages and listings)."""
    symbols = {"add": "+", "sub": "-", "mul": "*", "floordiv": "//", "truediv": "/", "mod": "%", "and": "&",
               "or": "|", "xor": "^", "shl": "<<", "shr": ">>", "lt": "<", "le": "<=", "gt": ">", "ge": ">=",
               "eq": "==", "ne": "!=", "land": "and", "lor": "or"}
    if isinstance(expr, Var):
        return expr.name
    if isinstance(expr, BinOp):
        if expr.op in ("min", "max"):
            return f"{expr.op}({expr_str(expr.lhs)}, {expr_str(expr.rhs)})"
        return f"({expr_str(expr.lhs)} {symbols[expr.op]} {expr_str(expr.rhs)})"
    if isinstance(expr, UnOp):
        prefix = {"neg": "-", "bnot": "~", "lnot": "not "}.get(expr.op)
        return f"{prefix}{expr_str(expr.arg)}" if prefix else f"{expr.op}({expr_str(expr.arg)})"
    if isinstance(expr, Cast):
        return f"{expr.dtype}({expr_str(expr.arg)})"
    if isinstance(expr, BufRef):
        view = f".as({expr.dtype})" if expr.dtype else ""
        return f"{expr.buffer}{view}[{expr_str(expr.offset)}]"
    if isinstance(expr, tuple):
        return "[" + ", ".join(expr_str(e) for e in expr) + "]"
    return repr(expr)


def instr_str(instr: Instr) -> str:
    """``opcode(name=value, ...)`` with expressions rendered."""
    return f"{instr.opcode}(" + ", ".join(f"{k}={expr_str(v)}" for k, v in instr.args) + ")"
