"""aclnnArgMin / aclnnArgMax(self, dim: int, keepdim: bool, out): the index of the first minimum / maximum along
``dim`` (``out``: int64 or int32; ``keepdim`` keeps ``dim`` with size 1).  A two-stage reduction (the extreme value,
then the first index holding it) on the scalar pipe."""
from __future__ import annotations

from npusim.aclnn import graph
from npusim.aclnn.op import Op
from npusim.aclnn.ops.shape import check_dim
from npusim.aclnn.params import params
from npusim.aclnn.scalar_pipe import run_te

_DTYPES = ("float32", "float16", "float64", "int32", "int64", "int16", "int8", "uint8", "bfloat16")
_INDEX_DTYPES = ("int64", "int32")


def reduced_shape(shape: tuple, dim: int, keepdim: bool) -> tuple:
    """``shape`` without ``dim`` (or with size 1 there when ``keepdim``)."""
    if not shape:
        return ()
    return shape[:dim] + ((1,) if keepdim else ()) + shape[dim + 1:]


def _arg(kind: str):
    def run(inv):
        src, out = inv["self"], inv["out"]
        graph.check_device_dtype(inv, "self", src.dtype)
        dim = check_dim(inv, "dim", inv["dim"], len(src.shape))
        if out.dtype not in _INDEX_DTYPES:
            raise inv.fail("out", f"dtype {out.dtype} must be int64 (or int32)")
        if src.numel == 0:
            raise inv.fail("self", f"{inv.api} of an empty tensor (shape {list(src.shape)}) has no result")
        graph.check_out_shape(inv, "out", reduced_shape(src.shape, dim, inv["keepdim"]))
        keep = inv["keepdim"] or not src.shape
        run_te(inv, (kind, dim, keep, out.dtype, out.shape), {"self": src}, [out],
               lambda places: [_arg_compute(places[0], dim, keep, kind, out.dtype)], "reduces to an index")
    return run


def _arg_compute(place, dim: int, keep: bool, kind: str, index_dtype: str):
    from tvm import te, tirx
    shape = tuple(int(d) for d in place.shape)
    length = shape[dim]
    out_shape = graph.kernel_shape(shape[:dim] + ((1,) if keep else ()) + shape[dim + 1:])
    reduce = te.min if kind == "min" else te.max

    def full(index, k):
        index = list(index)
        if keep:
            index[dim] = k
        elif len(shape) == 1:
            index = [k]
        else:
            index.insert(dim, k)
        return tuple(index)

    k1 = te.reduce_axis((0, length), name="k1")
    extreme = te.compute(out_shape, lambda *i: reduce(place[full(i, k1)], axis=k1), name="extreme")
    k2 = te.reduce_axis((0, length), name="k2")
    sentinel = tirx.const(length, index_dtype)
    return te.compute(out_shape, lambda *i: te.min(
        tirx.if_then_else(place[full(i, k2)] == extreme[i], k2.astype(index_dtype), sentinel), axis=k2), name="out")


OPS = (
    Op("aclnnArgMin", params("self:tensor", "dim:int", "keepdim:bool", "out:tensor!", dtypes=_DTYPES),
       _arg("min"), "out = index of the first minimum along dim", pipe="scalar"),
    Op("aclnnArgMax", params("self:tensor", "dim:int", "keepdim:bool", "out:tensor!", dtypes=_DTYPES),
       _arg("max"), "out = index of the first maximum along dim", pipe="scalar"),
)

__all__ = ["OPS", "reduced_shape"]
