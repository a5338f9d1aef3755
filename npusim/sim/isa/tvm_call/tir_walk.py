"""Small helpers over TVM TIR shared by the pricing and the guards of ``tvm_call``: lowering a TVMScript prim func
to flat loops, and generic access to a node's children (TVM 0.27 exposes node fields through FFI reflection).

Imported only when a ``tvm_call`` instruction is compiled (it imports TVM).
"""
from __future__ import annotations

import tvm
from tvm import s_tir, tirx

#: names of TIR load nodes (TVM 0.27 calls BufferLoad "TensorLoad" on the Python side)
LOAD_NODES = frozenset({"TensorLoad", "BufferLoad"})

INT_DIVISIONS = frozenset({"Div", "Mod", "FloorDiv", "FloorMod"})
#: calls (by short name: TVM registers them as "tirx.exp", "prim.if_then_else" ...) that generate no instruction
FREE_CALLS = frozenset({"likely", "reinterpret", "assume"})
IF_THEN_ELSE = "if_then_else"


def node_type(node) -> str:
    return type(node).__name__


def fields(node) -> list:
    """The reflected field names of a TVM object (empty for plain Python values)."""
    info = getattr(type(node), "__tvm_ffi_type_info__", None)
    return [f.name for f in info.fields] if info is not None else []


def expr_children(expr) -> list:
    """Sub-expressions of ``expr`` in field order (a Call's ``op`` is not one)."""
    children = []
    for name in fields(expr):
        if name in ("op", "ty", "ty_args", "span", "dtype"):
            continue
        value = getattr(expr, name)
        if isinstance(value, tvm.ir.Expr) and not _is_buffer(value):
            children.append(value)
        elif isinstance(value, (list, tuple)) or type(value).__name__ == "Array":
            children.extend(v for v in value if isinstance(v, tvm.ir.Expr) and not _is_buffer(v))
    return children


def _is_buffer(value) -> bool:
    return type(getattr(value, "ty", None)).__name__ == "BufferType"


def call_name(call) -> str:
    """The short name of a Call's operator ("exp", "if_then_else" ...)."""
    op = getattr(call, "op", None)
    return str(getattr(op, "name", "")).rsplit(".", 1)[-1] if op is not None else ""


def load_buffer(load):
    """The buffer a load node reads."""
    return load.source if hasattr(load, "source") else load.buffer


def flatten(func):
    """``func`` (TensorIR with blocks or plain TIR) lowered to flat loops over 1-D buffers, no vectorisation."""
    passes = tvm.ir.transform.Sequential([
        s_tir.transform.CanonicalizeLoop(), s_tir.transform.LowerCrossThreadReduction(),
        s_tir.transform.LowerInitBlock(), s_tir.transform.PlanAndUpdateBufferAllocationLocation(),
        s_tir.transform.ConvertBlocksToOpaque(), s_tir.transform.CompactBufferAllocation(),
        s_tir.transform.LowerMatchBuffer(), s_tir.transform.StmtSimplify(), s_tir.transform.LowerOpaqueBlock(),
        tirx.transform.FlattenBuffer(), tirx.transform.StmtSimplify(),
    ])
    module = passes(tvm.IRModule({"main": func}))
    return module["main"]


def loop_range(loop):
    """tvm.ir.Range of a For loop's variable."""
    return tvm.ir.Range.from_min_extent(loop.min, loop.extent)


def bind_quietly(analyzer, var, value) -> None:
    """Tell ``analyzer`` what ``var`` ranges over or equals.  A variable bound twice (TVM refuses a second,
    different binding) keeps its first binding: only the precision of later bounds is affected."""
    try:
        analyzer.bind(var, value)
    except (ValueError, RuntimeError, TypeError):
        pass


def _stored_buffers(stmt, found: list) -> None:
    """Append the buffer of every BufferStore under ``stmt``."""
    if isinstance(stmt, tirx.BufferStore):
        found.append(stmt.buffer)
    for name in fields(stmt):
        if name == "span":
            continue
        value = getattr(stmt, name, None)
        if isinstance(value, tirx.Stmt):
            _stored_buffers(value, found)
        elif isinstance(value, (list, tuple)) or type(value).__name__ == "Array":
            for item in value:
                if isinstance(item, tirx.Stmt):
                    _stored_buffers(item, found)


def stored_params(func) -> frozenset:
    """Positions of the buffer parameters ``func`` (flat loops, see :func:`flatten`) writes to.

    Flattening stores through a view declared over the parameter (``y_1 = y.view(n)``) whose buffer keeps the
    parameter's name; names of a prim func's parameters are unique, so stores are matched by name."""
    found: list = []
    _stored_buffers(func.body, found)
    names = {str(buffer.name) for buffer in found}
    return frozenset(i for i, param in enumerate(func.params) if str(param.name) in names)
