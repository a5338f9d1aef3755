"""Data-movement operators: Expand (vector unit: the DSL's broadcast), Cat, SplitTensor, SplitWithSize (scalar pipe).

* aclnnExpand(self, size: int_array, out): ``self`` broadcast to ``size`` (-1 keeps a dimension; new dimensions
  go in front), as ``Tensor.expand``.
* aclnnCat(tensors: tensor_list, dim: int, out): concatenation along ``dim``; dtypes promote, ``out`` takes the
  result's cast; 1-D empty tensors are skipped (PyTorch's legacy rule).
* aclnnSplitTensor(self, splitSections: int, dim: int, out: tensor_list): chunks of ``splitSections`` along
  ``dim`` (the last may be smaller).  aclnnSplitWithSize(self, splitSize: int_array, dim, out): chunks of the given
  sizes (summing to the dimension).
"""
from __future__ import annotations

from npusim.aclnn import graph
from npusim.aclnn.dtypes import can_cast, promote
from npusim.aclnn.elementwise import Formula, launch
from npusim.aclnn.op import Op
from npusim.aclnn.ops.cast import _SAME
from npusim.aclnn.ops.common import CASTABLE
from npusim.aclnn.params import params
from npusim.aclnn.scalar_pipe import cast_expr, run_te

_BROADCAST = Formula(lambda a: a, lambda a: a, native=("float16", "float32", "int32", "int8", "uint8"))


def check_dim(inv, name: str, dim: int, rank: int) -> int:
    """``dim`` normalised into [0, rank) (a 0-d tensor takes dim 0 or -1), or AclnnError naming ``name``."""
    bound = max(rank, 1)
    if not -bound <= dim < bound:
        raise inv.fail(name, f"dim {dim} is out of range [{-bound}, {bound - 1}] for a tensor of {rank} dimension(s)")
    return dim % bound


def _expand(inv):
    src, size = inv["self"].shape, list(inv["size"])
    graph.check_device_dtype(inv, "self", inv["self"].dtype)
    if len(size) < len(src):
        raise inv.fail("size", f"has {len(size)} dimension(s), fewer than self's {len(src)} ({list(src)})")
    lead = len(size) - len(src)
    shape = []
    for index, want in enumerate(size):
        have = src[index - lead] if index >= lead else None
        if want == -1 and have is not None:
            want = have
        if want < 0 or (have is not None and have not in (1, want)):
            raise inv.fail("size", f"{size} cannot expand self's shape {list(src)} (dimension {index}: {want})")
        shape.append(want)
    graph.check_out_shape(inv, "out", tuple(shape))
    if inv["out"].dtype != inv["self"].dtype:
        raise inv.fail("out", f"dtype {inv['out'].dtype} must be self's, {inv['self'].dtype}")
    same = graph.padded(src, len(shape)) == graph.kernel_shape(shape)
    launch(inv, ["self"], "out", inv["self"].dtype, _SAME if same else _BROADCAST)


def _cat(inv):
    listed = list(inv["tensors"])
    if not listed:
        raise inv.fail("tensors", "the tensor list is empty")
    parts = [t for t in listed if not (t.shape == (0,) and len(listed[0].shape) != 1)] or listed[:1]
    rank = len(parts[0].shape)
    if rank == 0:
        raise inv.fail("tensors", "zero-dimensional tensors cannot be concatenated")
    dim = check_dim(inv, "dim", inv["dim"], rank)
    dtype = parts[0].dtype
    for index, tensor in enumerate(parts):
        graph.check_device_dtype(inv, "tensors", tensor.dtype)
        same = len(tensor.shape) == rank and all(a == b for d, (a, b) in enumerate(zip(tensor.shape, parts[0].shape))
                                                 if d != dim)
        if not same:
            raise inv.fail("tensors", f"entry {index} has shape {list(tensor.shape)}, which does not match "
                                      f"{list(parts[0].shape)} outside dim {dim}")
        dtype = promote(dtype, tensor.dtype) or dtype
    shape = list(parts[0].shape)
    shape[dim] = sum(t.shape[dim] for t in parts)
    graph.check_out_shape(inv, "out", tuple(shape))
    graph.check_device_dtype(inv, "out", inv["out"].dtype)
    graph.check_cast(inv, "out", dtype)
    parts = [t for t in parts if t.numel]
    inputs = {f"x{i}": t for i, t in enumerate(parts)}
    out = inv["out"]
    run_te(inv, ("cat", dim, out.dtype, out.shape), inputs, [out],
           lambda places: [_cat_compute(places, dim, out.dtype, out.shape)], "concatenates by index")


def _cat_compute(places, dim: int, dtype: str, shape):
    from tvm import te, tirx
    offsets, total = [], 0
    for place in places:
        offsets.append(total)
        total += int(place.shape[dim])

    def element(*index):
        value = None
        for place, offset in zip(places, offsets):
            source = list(index)  # clamped: the simulator checks every load, taken branch or not
            source[dim] = tirx.min(tirx.max(index[dim] - offset, 0), int(place.shape[dim]) - 1)
            loaded = cast_expr(place[tuple(source)], str(place.dtype), dtype)
            value = loaded if value is None else tirx.if_then_else(index[dim] >= offset, loaded, value)
        return value

    return te.compute(tuple(shape), element, name="out")


def _split(sizes_of):
    def run(inv):
        src = inv["self"]
        graph.check_device_dtype(inv, "self", src.dtype)
        rank = len(src.shape)
        if rank == 0:
            raise inv.fail("self", "a zero-dimensional tensor cannot be split")
        dim = check_dim(inv, "dim", inv["dim"], rank)
        sizes = sizes_of(inv, src.shape[dim])
        outs = list(inv["out"])
        if len(outs) != len(sizes):
            raise inv.fail("out", f"holds {len(outs)} tensor(s), but the split makes {len(sizes)} (sizes {sizes})")
        for index, (tensor, size) in enumerate(zip(outs, sizes)):
            shape = list(src.shape)
            shape[dim] = size
            if tensor.shape != tuple(shape):
                raise inv.fail("out", f"entry {index} has shape {list(tensor.shape)}, expected {shape}")
            graph.check_device_dtype(inv, "out", tensor.dtype)
            if not can_cast(src.dtype, tensor.dtype):
                raise inv.fail("out", f"entry {index} has dtype {tensor.dtype}, which cannot hold self's {src.dtype}")
        starts = [sum(sizes[:i]) for i in range(len(sizes))]
        kept = [(t, start) for t, start in zip(outs, starts) if t.numel]
        key = ("split", dim, tuple(sizes), tuple(t.dtype for t in outs))
        run_te(inv, key, {"self": src}, [t for t, _ in kept],
               lambda places: _split_compute(places[0], dim, kept), "copies slices")
    return run


def _split_compute(place, dim: int, parts):
    from tvm import te
    outs = []
    for number, (tensor, offset) in enumerate(parts):
        shape = graph.kernel_shape(tensor.shape)

        outs.append(te.compute(shape, _shifted(place, dim, offset, tensor.dtype), name=f"out{number}"))
    return outs


def _shifted(place, dim: int, offset: int, dtype: str):
    def element(*index):
        source = list(index)
        source[dim] = index[dim] + offset
        return cast_expr(place[tuple(source)], str(place.dtype), dtype)
    return element


def _sections(inv, length: int) -> list:
    step = inv["splitSections"]
    if step <= 0 and length:
        raise inv.fail("splitSections", f"must be positive, got {step}")
    if not length:
        return [0]
    return [min(step, length - start) for start in range(0, length, step)]


def _sizes(inv, length: int) -> list:
    sizes = list(inv["splitSize"])
    if any(s < 0 for s in sizes) or sum(sizes) != length:
        raise inv.fail("splitSize", f"{sizes} must be non-negative sizes summing to the split dimension's {length}")
    return sizes


OPS = (
    Op("aclnnExpand", params("self:tensor", "size:int_array", "out:tensor!", dtypes=CASTABLE), _expand,
       "out = self broadcast to size"),
    Op("aclnnCat", params("tensors:tensor_list", "dim:int", "out:tensor!", dtypes=CASTABLE), _cat,
       "out = tensors concatenated along dim", pipe="scalar"),
    Op("aclnnSplitTensor", params("self:tensor", "splitSections:int", "dim:int", "out:tensor_list!",
                                  dtypes=CASTABLE), _split(_sections), "out = self in chunks of splitSections",
       pipe="scalar"),
    Op("aclnnSplitWithSize", params("self:tensor", "splitSize:int_array", "dim:int", "out:tensor_list!",
                                    dtypes=CASTABLE), _split(_sizes), "out = self in chunks of the given sizes",
       pipe="scalar"),
)

__all__ = ["OPS", "check_dim"]
