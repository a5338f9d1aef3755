"""Shape and dtype helpers shared by the operator families: numpy-style broadcasting with aclnn's errors, the DSL
placeholders of an aclTensor, and the casts/broadcasts that bring an operand to a compute dtype and shape."""
from __future__ import annotations

from typing import Sequence

from npusim.aclnn.dtypes import can_cast, promote

#: the dtypes a kernel's GM tensors may hold (what the simulated device stores)
DEVICE_DTYPES = ("float16", "float32", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64",
                 "float64", "bool")


def broadcast_shape(a: Sequence[int], b: Sequence[int]):
    """numpy's broadcast of two shapes, or None when they do not broadcast."""
    a, b = tuple(a), tuple(b)
    rank = max(len(a), len(b))
    a, b = (1,) * (rank - len(a)) + a, (1,) * (rank - len(b)) + b
    out = []
    for x, y in zip(a, b):
        if x != y and 1 not in (x, y):
            return None
        out.append(y if x == 1 else x)
    return tuple(out)


def check_broadcast(inv, first: str, second: str) -> tuple:
    """The broadcast shape of tensor arguments ``first`` and ``second`` (AclnnError naming ``second``)."""
    a, b = inv[first].shape, inv[second].shape
    shape = broadcast_shape(a, b)
    if shape is None:
        raise inv.fail(second, f"shape {list(b)} does not broadcast with {first}'s shape {list(a)}")
    return shape


def check_out_shape(inv, name: str, shape: tuple) -> None:
    """Output ``name`` must have exactly ``shape``."""
    if inv[name].shape != tuple(shape):
        raise inv.fail(name, f"shape {list(inv[name].shape)} must be {list(shape)}")


def check_promote(inv, first: str, second: str) -> str:
    """The promoted dtype of tensors ``first`` and ``second``."""
    a, b = inv[first].dtype, inv[second].dtype
    dtype = promote(a, b)
    if dtype is None:
        raise inv.fail(second, f"dtype {b} cannot be promoted with {first}'s dtype {a}")
    return dtype


def check_cast(inv, name: str, src: str) -> None:
    """Output ``name`` must be a dtype a ``src`` result can be cast to."""
    dst = inv[name].dtype
    if not can_cast(src, dst):
        raise inv.fail(name, f"dtype {dst} cannot hold the result, of dtype {src} (aclnn casts results only to "
                             f"dtypes of the same or a higher category: bool < integer < floating point)")


def check_device_dtype(inv, name: str, dtype: str) -> None:
    """A dtype the simulated device cannot store at all (bfloat16, complex ...) is an unsupported argument."""
    if dtype not in DEVICE_DTYPES:
        raise inv.unsupported(name, f"dtype {dtype} is accepted by aclnn but npusim's simulated device has no "
                                    f"{dtype} tensors (it stores {', '.join(DEVICE_DTYPES)})")


def kernel_shape(shape: Sequence[int]) -> tuple:
    """The shape a kernel uses for a tensor: a 0-d tensor is one element."""
    return tuple(int(d) for d in shape) or (1,)


def padded(shape: Sequence[int], rank: int) -> tuple:
    """``shape`` with leading 1s up to ``rank`` dimensions (at least one)."""
    shape = tuple(int(d) for d in shape)
    return kernel_shape((1,) * (rank - len(shape)) + shape)


def placeholder(name: str, shape: Sequence[int], dtype: str):
    """A TE placeholder for a tensor argument."""
    from tvm import te
    return te.placeholder(kernel_shape(shape), dtype, name=name)


def as_dtype(x, dtype: str):
    """``x`` converted to ``dtype`` with the DSL's cast (``x`` itself when it already is)."""
    from te_compat import dsl
    return x if str(x.dtype) == dtype else dsl.cast_to(x, dtype)


def to_shape(x, shape: Sequence[int]):
    """``x`` broadcast to ``shape`` (same rank) with the DSL's broadcast (``x`` itself when it already has it)."""
    from te_compat import dsl
    shape = tuple(int(d) for d in shape)
    current = tuple(int(d) for d in x.shape)
    return x if current == shape else dsl.broadcast(x, shape)


def const_tensor(value, shape: Sequence[int], dtype: str):
    """A tensor of ``shape`` filled with ``value`` as ``dtype`` (the DSL's scalar broadcast)."""
    from te_compat import dsl
    return dsl.broadcast(value, tuple(int(d) for d in shape), dtype)


__all__ = ["DEVICE_DTYPES", "as_dtype", "broadcast_shape", "check_broadcast", "check_cast", "check_device_dtype",
           "check_out_shape", "check_promote", "const_tensor", "kernel_shape", "padded", "placeholder", "to_shape"]
