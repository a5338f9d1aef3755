"""The host (numpy) work behind ``ms::Tensor`` methods and factories that move data without a device kernel.

Called by npusim's ms_extension headers as ``host_op(name, *args)``; every function takes and returns numpy arrays
(the C++ side wraps the result as a new tensor without copying it).
"""
from __future__ import annotations

import numpy as np

from npusim.errors import ExtensionValueError


def contiguous(array: np.ndarray) -> np.ndarray:
    """A C-contiguous copy of a strided view."""
    return np.ascontiguousarray(array)


def index_select(array: np.ndarray, dim: int, index: np.ndarray) -> np.ndarray:
    """``ms::Tensor::index_select``: the entries ``index`` along ``dim``."""
    index = np.asarray(index).reshape(-1)
    if index.dtype.kind not in "iu":
        raise ExtensionValueError(f"ms::Tensor::index_select: the index must be an integer tensor, got "
                                  f"{index.dtype}")
    size = array.shape[dim] if array.ndim else 1
    if index.size and (index.min() < 0 or index.max() >= size):
        raise ExtensionValueError(f"ms::Tensor::index_select: index values must be in [0, {size - 1}], got "
                                  f"{index.tolist()}")
    return np.ascontiguousarray(np.take(array, index, axis=dim if array.ndim else None))


def repeat(array: np.ndarray, repeats) -> np.ndarray:
    """``ms::Tensor::repeat`` (PyTorch's repeat: tile, with leading dimensions added as needed)."""
    repeats = tuple(int(r) for r in repeats)
    if len(repeats) < array.ndim:
        raise ExtensionValueError(f"ms::Tensor::repeat: {len(repeats)} repeats for a tensor of rank {array.ndim}; "
                                  f"give at least one per dimension")
    if any(r < 0 for r in repeats):
        raise ExtensionValueError(f"ms::Tensor::repeat: repeats must be non-negative, got {list(repeats)}")
    return np.ascontiguousarray(np.tile(array, repeats))


def repeat_interleave(array: np.ndarray, repeats, dim, output_size) -> np.ndarray:
    """``ms::Tensor::repeat_interleave``: each element repeated ``repeats`` times along ``dim`` (None: flattened)."""
    counts = np.asarray(repeats).reshape(-1) if isinstance(repeats, np.ndarray) else int(repeats)
    if np.any(np.asarray(counts) < 0):
        raise ExtensionValueError("ms::Tensor::repeat_interleave: repeats must be non-negative")
    result = np.repeat(array, counts, axis=dim)
    axis_size = result.shape[dim] if dim is not None else result.size
    if output_size is not None and output_size != axis_size:
        raise ExtensionValueError(f"ms::Tensor::repeat_interleave: output_size {output_size} does not match the "
                                  f"repeated size {axis_size}")
    return np.ascontiguousarray(result)


def from_values(values, dtype) -> np.ndarray:
    """``ms::tensor(value | values, dtype)``: a 0-d or 1-d tensor of the values."""
    return np.array(values, dtype=dtype)


def filled(shape, value, dtype) -> np.ndarray:
    """``ms::ones`` / ``ms::zeros``."""
    shape = tuple(int(d) for d in shape)
    if any(d < 0 for d in shape):
        raise ExtensionValueError(f"ms::ones / ms::zeros: negative dimension in shape {list(shape)}")
    return np.full(shape, value, dtype=dtype)


HOST_OPS = {"contiguous": contiguous, "index_select": index_select, "repeat": repeat,
            "repeat_interleave": repeat_interleave, "from_values": from_values, "filled": filled}


def host_op(name: str, *args) -> np.ndarray:
    """Run host operation ``name`` (a key of HOST_OPS)."""
    return HOST_OPS[name](*args)


__all__ = ["HOST_OPS", "host_op"]
