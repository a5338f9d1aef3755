"""Lowering akg ``ir_builder`` functions: call them on placeholders with :mod:`.ir_builder`'s ``tvm`` and turn
the extern they return into the same LoweredKernel hybrid functions lower to (so the CPU build, the disk cache
and the simulated-Ascend path serve both)."""
from __future__ import annotations

import inspect
import types
from typing import Sequence

from tvm import tirx

from npusim.errors import KernelBuildError, NpusimError, UnsupportedError
from npusim.hybrid import ir_builder
from npusim.hybrid.kernel_ir import LoweredKernel


def with_akg_tvm(func):
    """``func`` re-bound so that the global name ``tvm`` is npusim's ir_builder surface (AKG runs these functions
    with its own ``akg.tvm`` in scope; the user's module is left untouched)."""
    func = inspect.unwrap(func)   # decorators such as custom_info_register wrap it (functools.wraps)
    globals_ = dict(func.__globals__)
    globals_["tvm"] = ir_builder.namespace()
    rebound = types.FunctionType(func.__code__, globals_, func.__name__, func.__defaults__, func.__closure__)
    rebound.__kwdefaults__ = func.__kwdefaults__
    return rebound


def lower_ir_builder(func, name: str, in_shapes: Sequence, in_dtypes: Sequence, attrs: dict) -> LoweredKernel:
    """The LoweredKernel of ir_builder function ``func`` for inputs of these shapes/dtypes and ``attrs``."""
    placeholders = [ir_builder.Tensor(f"input_{i}", shape, dtype)
                    for i, (shape, dtype) in enumerate(zip(in_shapes, in_dtypes))]
    try:
        result = with_akg_tvm(func)(placeholders, dict(attrs))
    except NpusimError:
        raise
    except Exception as exc:  # the user's function failed while building its IR: name it, keep the cause
        raise KernelBuildError(f"akg ir_builder function '{name}' failed while building its IR: "
                               f"{type(exc).__name__}: {exc}") from exc
    outputs = list(result) if isinstance(result, (list, tuple)) else [result]
    stage = _single_stage(name, outputs, placeholders)
    symbol = f"akg_{name}"
    params = [p.buffer for p in placeholders] + list(stage.out_buffers)
    body = stage.body if stage.body is not None else tirx.Evaluate(0)
    prim_func = tirx.PrimFunc(params, body).with_attr("global_symbol", symbol).with_attr("tir.noalias", True)
    out_specs = tuple((tuple(int(d) for d in b.shape), str(b.dtype)) for b in stage.out_buffers)
    returns = tuple(("output", out.value_index) for out in outputs)
    return LoweredKernel(prim_func=prim_func, symbol=symbol, out_specs=out_specs, returns=returns,
                         result_specs=tuple(out_specs[k] for _, k in returns),
                         written_inputs=_written_inputs(body, placeholders), float_attrs=())


def _single_stage(name, outputs, placeholders):
    if not outputs or not all(isinstance(o, ir_builder.Tensor) and o.stage is not None for o in outputs):
        raise KernelBuildError(f"akg ir_builder function '{name}' must return the output tensor(s) of a "
                               "tvm.extern")
    stage = outputs[0].stage
    if any(o.stage is not stage for o in outputs) or any(
            not any(t is p for p in placeholders) for t in stage.inputs):
        raise UnsupportedError(f"akg ir_builder function '{name}': npusim runs one tvm.extern over the function's "
                               "inputs; chained externs are not supported")
    return stage


def _written_inputs(body, placeholders) -> frozenset:
    written = set()
    pending = [body]
    while pending:
        node = pending.pop()
        if node is None:
            continue
        if isinstance(node, tirx.BufferStore):
            written.update(i for i, p in enumerate(placeholders) if p.buffer.same_as(node.buffer))
        elif isinstance(node, tirx.SeqStmt):
            pending.extend(node.seq)
        elif isinstance(node, tirx.For):
            pending.append(node.body)
        elif isinstance(node, tirx.IfThenElse):
            pending.extend([node.then_case, node.else_case])
    return frozenset(written)

