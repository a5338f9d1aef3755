"""The element-wise engine: one kernel computing ``out = f(inputs...)`` with broadcasting and dtype conversion.

An operator names its tensor inputs, its output and the dtype it computes in.  When the vector unit has ``f`` in
that dtype (``Formula.native``) and the DSL can convert the inputs and the result, the kernel is a TBE DSL graph
(casts, broadcasts, ``Formula.vector``) scheduled onto the vector unit; otherwise (int64, float64, int8 wrapping,
bool logic ...) it is the same formula as a plain TVM compute (``Formula.scalar``) on the AI core's scalar pipe.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional, Sequence

from npusim.aclnn import graph
from npusim.aclnn.kernels import cached_kernel, dsl_kernel, run_kernel, scalar_kernel
from npusim.errors.tbe import TbeArgumentError

#: dtypes the DSL converts from / to (vconv chains on the chip)
_DSL_SOURCES = ("float16", "float32", "int8", "uint8", "int32", "bool")
_DSL_TARGETS = ("float16", "float32", "int8", "uint8", "int32")


@dataclass(frozen=True)
class Formula:
    """``vector(*dsl_tensors, *attrs)``: the DSL graph, operands already in the compute dtype and output shape;
    ``scalar(*tvm_exprs, *attrs)``: the same value as a TVM expression of compute-dtype operands; ``native``: the
    compute dtypes the vector form supports (others take the scalar form); ``result``: the dtype the formula
    yields when it is not the compute dtype ("bool" for comparisons)."""

    vector: Callable
    scalar: Callable
    native: tuple = ("float16", "float32", "int32")
    result: Optional[str] = None


def scaled(x, value):
    """``x * value`` in the DSL (a const tensor for integers, where vmuls would compute in float)."""
    from te_compat import dsl
    if value == 1:
        return x
    dtype = str(x.dtype)
    if dtype.startswith(("int", "uint")):
        return dsl.vmul(x, graph.const_tensor(value, tuple(int(d) for d in x.shape), dtype))
    return dsl.vmuls(x, value)


def uses_vector(formula: Formula, compute: str, in_dtypes: Sequence[str], out_dtype: str) -> bool:
    """Whether the vector form applies: compute dtype native, every conversion one the DSL makes."""
    return compute in formula.native and all(d in _DSL_SOURCES for d in in_dtypes) and \
        (out_dtype == (formula.result or compute) or out_dtype in _DSL_TARGETS)


def launch(inv, inputs: Sequence[str], out: str, compute: str, formula: Formula, attrs: tuple = ()) -> None:
    """Run ``out = formula(inputs..., *attrs)`` computed in ``compute`` for tensor arguments ``inputs``
    (broadcast to ``out``'s shape) and write ``out`` in place."""
    target = inv[out]
    if target.numel == 0:
        return
    tensors = [inv[name] for name in inputs]
    vector = uses_vector(formula, compute, [t.dtype for t in tensors], target.dtype)
    key = (tuple((t.dtype, t.shape) for t in tensors), target.dtype, target.shape, compute, attrs, vector)
    rank = len(target.shape)

    def build(name):
        places = [graph.placeholder(n, graph.padded(t.shape, rank), t.dtype) for n, t in zip(inputs, tensors)]
        shape = graph.kernel_shape(target.shape)
        if vector:
            try:
                result = _vector_graph(places, shape, compute, target.dtype, formula, attrs)
                return dsl_kernel(inv.runtime, name, places, [result])
            except TbeArgumentError:  # this chip's DSL rejects a step (no such instruction or vconv): scalar pipe
                pass
        result = scalar_compute(places, shape, compute, target.dtype, lambda *v: formula.scalar(*v, *attrs))
        return scalar_kernel(inv.runtime, name, places, [result], f"{inv.api} computes in {compute}, which the "
                                                                    f"vector unit has no instructions for")

    kernel = cached_kernel(inv, key, build)
    run_kernel(inv, kernel, [t.data() for t in tensors], [target.data()])


def _vector_graph(places, shape, compute: str, out_dtype: str, formula: Formula, attrs: tuple):
    from te_compat import dsl
    operands = [graph.to_shape(graph.as_dtype(p, compute), shape) for p in places]
    result = formula.vector(*operands, *attrs)
    if str(result.dtype) != out_dtype:
        result = dsl.cast_to(result, out_dtype)
    return result


def scalar_compute(places, shape, compute: str, out_dtype: str, body: Callable):
    """A plain TVM compute of ``shape``: ``body`` of the broadcast operands (each cast to ``compute``), cast to
    ``out_dtype`` (bool: nonzero)."""
    from tvm import te

    def element(*index):
        values = [_cast(p[_source_index(p, index)], compute) for p in places]
        return _cast(body(*values), out_dtype)

    return te.compute(tuple(shape), element, name="out")


def _source_index(place, index) -> tuple:
    return tuple(0 if int(d) == 1 else i for d, i in zip(place.shape, index))


def _cast(value, dtype: str):
    from tvm import tirx
    from te_compat.objects import dtype_of
    src = dtype_of(value)
    if src == dtype:
        return value
    if dtype == "bool":
        return value != tirx.const(0, src)
    if src == "bool":
        return tirx.Select(value, tirx.const(1, dtype), tirx.const(0, dtype))
    return value.astype(dtype)


__all__ = ["Formula", "launch", "scalar_compute", "scaled", "uses_vector"]
