"""From a checked hybrid function plus input shapes/dtypes/attributes to a TIR PrimFunc and its signature."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from tvm import tirx

from npusim.errors import HybridValueError, OpValueError
from npusim.hybrid.attrs import freeze, is_float_attr
from npusim.hybrid.dtypes import normalize_dtype
from npusim.hybrid.lower_stmt import KernelLowering
from npusim.hybrid.source import KernelSource
from npusim.hybrid.values import Buf, Dyn, declare_buffer

_MAX_TYPE_PASSES = 6


@dataclass(frozen=True)
class LoweredKernel:
    """A hybrid function specialised to one signature.

    prim_func: the TIR function; params are the inputs, then the output tensors (declaration order), then one
    float64 scalar per float attribute.  symbol: its global symbol.
    out_specs: (shape, dtype) of each output_tensor, in parameter order.
    returns: per returned value, ("output", k) or ("input", i).
    result_specs: (shape, dtype) of each returned value.
    written_inputs: indices of inputs the kernel stores into (the launcher passes copies of those).
    float_attrs: positions (among the attribute values) passed at run time as float64 parameters.
    default_attrs: the default values appended after the given attribute values (parameters the call left out).
    """

    prim_func: Any
    symbol: str
    out_specs: tuple
    returns: tuple
    result_specs: tuple
    written_inputs: frozenset
    float_attrs: tuple
    default_attrs: tuple = ()


def split_attrs(source: KernelSource, n_inputs: int, attr_values: Sequence) -> list:
    """Values of the function's trailing (non-tensor) parameters: the given ones, then defaults."""
    params = source.param_names
    extra = params[n_inputs:]
    values = list(attr_values)
    if n_inputs > len(params) or len(values) > len(extra):
        raise OpValueError(f"hybrid function '{source.name}' takes {len(params)} parameter(s) "
                           f"({', '.join(params)}), but got {n_inputs} tensor(s) and {len(values)} attribute(s)")
    missing = extra[len(values):]
    defaults = source.defaults[len(source.defaults) - len(missing):] if missing else ()
    if len(defaults) < len(missing):
        raise OpValueError(f"hybrid function '{source.name}': no value for parameter(s) "
                           f"{', '.join(missing)} (pass them as attributes after the tensors)")
    return values + list(defaults)


def lower_kernel(source: KernelSource, in_shapes: Sequence, in_dtypes: Sequence,
                 attr_values: Sequence = ()) -> LoweredKernel:
    """Lower ``source`` for these input shapes/dtypes and attribute values (the function must pass the checks)."""
    values = split_attrs(source, len(in_shapes), attr_values)
    inputs = [Buf(name, declare_buffer(name, tuple(shape), normalize_dtype(dtype)), tuple(int(s) for s in shape),
                  normalize_dtype(dtype), "input", index)
              for index, (name, shape, dtype) in enumerate(zip(source.param_names, in_shapes, in_dtypes))]
    attrs, float_vars, float_positions = _attr_bindings(source, len(inputs), values)
    scalar_types: dict = {}
    for _ in range(_MAX_TYPE_PASSES):
        lowering = KernelLowering(source, inputs, attrs, scalar_types)
        body = lowering.lower_body()
        final = lowering.final_scalar_types()
        if final == {name: lowering.scalar_types[name] for name in final}:
            return _assemble(source, lowering, inputs, body, float_vars, float_positions,
                             tuple(values[len(attr_values):]))
        scalar_types = final
    raise HybridValueError(f"In the function {source.name} written in the Hybrid DSL, the dtypes of the local "
                           f"variables did not settle after {_MAX_TYPE_PASSES} passes")


def _attr_bindings(source: KernelSource, n_inputs: int, values: list):
    names = source.param_names[n_inputs:]
    bindings, float_vars, positions = {}, [], []
    for position, (name, value) in enumerate(zip(names, values)):
        if is_float_attr(value):
            var = tirx.Var(name, "float64")
            float_vars.append(var)
            positions.append(position)
            bindings[name] = Dyn(var, weak=True)
        else:
            bindings[name] = freeze(value)
    return bindings, float_vars, tuple(positions)


def _assemble(source, lowering, inputs, body, float_vars, float_positions, default_attrs) -> LoweredKernel:
    symbol = f"hybrid_{source.name}"
    params = [b.buffer for b in inputs] + [b.buffer for b in lowering.outputs] + float_vars
    prim_func = (tirx.PrimFunc(params, body).with_attr("global_symbol", symbol)
                 .with_attr("tir.noalias", True))
    returns = tuple((buf.role, buf.index) for buf in lowering.returns)
    return LoweredKernel(
        prim_func=prim_func, symbol=symbol,
        out_specs=tuple((b.shape, b.dtype) for b in lowering.outputs),
        returns=returns,
        result_specs=tuple((b.shape, b.dtype) for b in lowering.returns),
        written_inputs=frozenset(lowering.written_inputs),
        float_attrs=float_positions, default_attrs=default_attrs)
