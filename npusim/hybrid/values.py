"""What a DSL expression lowers to, and small TIR helpers over those values.

A lowered value is one of:

- a Python ``int`` / ``float`` / ``bool`` / ``str`` (known at compile time: shapes, dtypes, literals,
  integer attributes) or a ``tuple`` of values (``a.shape``, a ``grid`` index);
- :class:`Dyn`: a TIR expression computed at run time (its dtype is the expression's);
- :class:`Buf`: a tensor (input, output_tensor, allocate) or a local scalar variable (a 1-element buffer).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from tvm import tirx

from npusim.hybrid.dtypes import TypeInfo, static_type

STATIC_SCALARS = (bool, int, float, np.bool_, np.integer, np.floating)


@dataclass(frozen=True)
class Dyn:
    """A run-time scalar: ``expr`` is a TIR PrimExpr; ``weak`` marks literal-like values (see dtypes)."""

    expr: Any
    weak: bool = False

    @property
    def dtype(self) -> str:
        return dtype_of(self.expr)

    @property
    def type(self) -> TypeInfo:
        return TypeInfo(self.dtype, self.weak)


@dataclass(frozen=True)
class Buf:
    """A tensor or local scalar.  role: "input" | "output" | "local" | "scalar"; index: position among
    the inputs / outputs (-1 otherwise)."""

    name: str
    buffer: Any
    shape: tuple
    dtype: str
    role: str
    index: int = -1
    weak: bool = False


def is_static_scalar(value) -> bool:
    return isinstance(value, STATIC_SCALARS)


def dtype_of(expr) -> str:
    return str(expr.ty)


def type_of(value) -> TypeInfo:
    """TypeInfo of a numeric value (static scalar or Dyn)."""
    if isinstance(value, Dyn):
        return value.type
    return static_type(value)


def const(value, dtype: str):
    """A TIR constant of ``dtype`` from a Python number."""
    if dtype == "bool":
        return tirx.const(bool(value), "bool")
    if dtype.startswith(("int", "uint")):
        return tirx.const(int(value), dtype)
    return tirx.const(float(value), dtype)


def cast(expr, dtype: str):
    """``expr`` converted to ``dtype`` (numbers become bool by comparing with zero, like numpy)."""
    source = dtype_of(expr)
    if source == dtype:
        return expr
    if dtype == "bool":
        return tirx.NE(expr, const(0, source))
    return tirx.Cast(dtype, expr)


def to_expr(value, dtype: str):
    """A numeric value as a TIR expression of ``dtype``."""
    if isinstance(value, Dyn):
        return cast(value.expr, dtype)
    return const(value, dtype)


def as_bool(value):
    """A condition value as a bool TIR expression."""
    return to_expr(value, "bool")


def static_int(value):
    """``value`` as a Python int if it is known at compile time (a Python int or an integer constant), else None."""
    if isinstance(value, (bool, np.bool_)):
        return int(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, Dyn) and isinstance(value.expr, tirx.IntImm):
        return int(value.expr.value)
    return None


def seq(stmts: list):
    """One statement from a list (a no-op for an empty list)."""
    stmts = [s for s in stmts if s is not None]
    if not stmts:
        return tirx.Evaluate(const(0, "int32"))
    if len(stmts) == 1:
        return stmts[0]
    return tirx.SeqStmt(stmts)


def zero_fill(buf: Buf):
    """A loop nest writing 0 to every element of ``buf``."""
    loop_vars = [tirx.Var(f"{buf.name}_z{axis}", "int32") for axis in range(len(buf.shape))]
    stmt = tirx.BufferStore(buf.buffer, const(0, buf.dtype), loop_vars)
    for var, extent in reversed(list(zip(loop_vars, buf.shape))):
        stmt = tirx.For(var, const(0, "int32"), const(extent, "int32"), tirx.ForKind.SERIAL, stmt)
    return stmt


def declare_buffer(name: str, shape: tuple, dtype: str, scope: str = ""):
    """A TIR buffer that assumes only element alignment (numpy arrays are passed in without copies)."""
    return tirx.decl_buffer(tuple(int(s) for s in shape), dtype, name=name,
                            data_alignment=np.dtype(dtype).itemsize, scope=scope)
