"""Reductions over dimensions: ReduceSum and Mean (dims, keepDim, dtype), Amax and Amin (dims, keepDim).

* aclnnReduceSum(self, dim: int_array, keepDim: bool, dtype: dtype, out) — ``out`` is of ``dtype``; an empty
  ``dim`` reduces every dimension.  aclnnMean has the same parameters (``dtype`` a floating-point one).
* aclnnAmax / aclnnAmin(self, dim: int_array, keepDim: bool, out) — ``out`` of ``self``'s dtype.

float16 / float32 reductions run on the vector unit (the DSL's ``sum`` / ``reduce_max`` / ``reduce_min``; float16
sums accumulate in float32); integer and other reductions are exact scalar-pipe reductions.
"""
from __future__ import annotations

from npusim.aclnn import graph
from npusim.aclnn.kernels import cached_kernel, dsl_kernel, run_kernel
from npusim.aclnn.op import Op
from npusim.aclnn.ops.common import FLOAT, REAL
from npusim.aclnn.params import params
from npusim.aclnn.scalar_pipe import cast_expr, run_te

_VECTOR = ("float16", "float32")


def _axes(inv, rank: int) -> tuple:
    dims = list(inv["dim"])
    bound = max(rank, 1)
    for d in dims:
        if not -bound <= d < bound:
            raise inv.fail("dim", f"dim {d} is out of range [{-bound}, {bound - 1}] for a tensor of {rank} "
                                  f"dimension(s)")
    axes = sorted({d % bound for d in dims})
    if len(axes) != len(dims):
        raise inv.fail("dim", f"{dims} names a dimension twice")
    return tuple(axes) if axes else tuple(range(rank))


def _reduced(shape: tuple, axes: tuple, keep: bool) -> tuple:
    return tuple(1 if d in axes else n for d, n in enumerate(shape) if keep or d not in axes)


def _reduction(kind: str, with_dtype: bool):
    def run(inv):
        src, out = inv["self"], inv["out"]
        graph.check_device_dtype(inv, "self", src.dtype)
        dtype = inv["dtype"].dtype_name if with_dtype else src.dtype
        if with_dtype and out.dtype != dtype:
            raise inv.fail("out", f"dtype {out.dtype} must be the dtype argument's, {dtype}")
        if kind == "mean" and dtype not in FLOAT:
            raise inv.fail("dtype", f"{dtype} is not a floating-point dtype (a mean needs one)")
        graph.check_device_dtype(inv, "out", out.dtype)
        axes = _axes(inv, len(src.shape))
        keep = inv["keepDim"]
        graph.check_out_shape(inv, "out", _reduced(src.shape, axes, keep))
        if out.numel == 0:
            return
        if src.numel == 0 and kind in ("max", "min"):
            raise inv.fail("self", f"{inv.api} of an empty tensor has no identity")
        key = (kind, axes, keep, dtype)
        if src.dtype in _VECTOR and dtype in _VECTOR and src.numel and src.shape:
            _vector(inv, key, src, out, kind, axes, keep)
        else:
            run_te(inv, key, {"self": src}, [out],
                   lambda places: [_te_reduce(places[0], axes or (0,), keep or not src.shape, kind, dtype)],
                   f"reduces in {dtype}")
    return run


def _vector(inv, key, src, out, kind: str, axes: tuple, keep: bool):
    from te_compat import dsl

    def build(name):
        x = graph.placeholder("self", src.shape, src.dtype)
        acc = "float32" if kind in ("sum", "mean") else src.dtype
        value = graph.as_dtype(x, acc)
        reducer = {"sum": dsl.sum, "mean": dsl.sum, "max": dsl.reduce_max, "min": dsl.reduce_min}[kind]
        result = reducer(value, list(axes), keep)
        if kind == "mean":
            count = 1
            for a in axes:
                count *= src.shape[a]
            result = dsl.vmuls(result, 1.0 / count)
        return dsl_kernel(inv.runtime, name, [x], [graph.as_dtype(result, out.dtype)])

    kernel = cached_kernel(inv, ("vector", src.dtype, src.shape, key), build)
    run_kernel(inv, kernel, [src.data()], [out.data()])


def _te_reduce(place, axes: tuple, keep: bool, kind: str, dtype: str):
    from tvm import te, tirx
    shape = tuple(int(d) for d in place.shape)
    raxes = {a: te.reduce_axis((0, shape[a]), name=f"r{a}") for a in axes}
    out_shape = graph.kernel_shape(_reduced(shape, axes, keep))
    count = 1
    for a in axes:
        count *= shape[a]
    acc = "float32" if dtype == "float16" else dtype

    def element(*index):
        kept = iter(index)
        full = []
        for d in range(len(shape)):
            if d in raxes:
                full.append(raxes[d])
                if keep:
                    next(kept)
            else:
                full.append(next(kept))
        value = cast_expr(place[tuple(full)], str(place.dtype), acc)
        reducer = {"sum": te.sum, "mean": te.sum, "max": te.max, "min": te.min}[kind]
        return reducer(value, axis=list(raxes.values()))

    totals = te.compute(out_shape, element, name="total")  # a reduction must be a compute's whole body

    def finish(*index):
        total = totals[index]
        if kind == "mean":
            total = total / tirx.const(count, acc)
        return cast_expr(total, acc, dtype)

    return te.compute(out_shape, finish, name="out")


_SUM_DTYPES = REAL


OPS = (
    Op("aclnnReduceSum", params("self:tensor", "dim:int_array", "keepDim:bool", "dtype:dtype", "out:tensor!",
                                dtypes=_SUM_DTYPES), _reduction("sum", True), "out = sum of self over dim"),
    Op("aclnnMean", params("self:tensor", "dim:int_array", "keepDim:bool", "dtype:dtype", "out:tensor!",
                           dtypes=_SUM_DTYPES), _reduction("mean", True), "out = mean of self over dim"),
    Op("aclnnAmax", params("self:tensor", "dim:int_array", "keepDim:bool", "out:tensor!", dtypes=REAL),
       _reduction("max", False), "out = max of self over dim"),
    Op("aclnnAmin", params("self:tensor", "dim:int_array", "keepDim:bool", "out:tensor!", dtypes=REAL),
       _reduction("min", False), "out = min of self over dim"),
)

__all__ = ["OPS"]
