"""Data formats of a Custom tbe op's dtype_format row, as MindSpore feeds them to the kernel.

When the selected row declares a non-default format for an input (``F16_FracNZ``, ``F16_5HD``, ``F16_FracZ`` ...),
MindSpore inserts a TransData before the kernel: the caller's ND / NCHW tensor is converted into that format, and the
impl's dict says ``shape`` (the converted shape), ``format``, ``ori_shape`` (the caller's) and ``ori_format``.  An
output declared in such a format is converted back to the caller's shape after the kernel.  npusim does the same
on the host (numpy; the conversions move data only, exactly):

* ``FRACTAL_NZ`` of ``[..., r, c]``: ``[..., ceil(c / c0), ceil(r / 16), 16, c0]`` (c0 as MindSpore sizes it: 32
  for 1-byte dtypes, 16 for every other, float32 and int32 too), zero padding; ori_format ``ND``;
* ``NC1HWC0`` of NCHW ``[n, c, h, w]``: ``[n, ceil(c / c0), h, w, c0]``; ori_format ``NCHW``;
* ``FRACTAL_Z`` of an NCHW weight ``[n, c, h, w]``: ``[ceil(c / c0) * h * w, ceil(n / 16), 16, c0]``;
  ori_format ``NCHW``.

A tensor of fewer than 4 dims in NC1HWC0 or FRACTAL_Z is first padded to NCHW as MindSpore pads it: by the
input's / output's ``reshape_type`` in the reg info (its letters name the NCHW axes the dims are, e.g. "NC": a
Dense weight ``[n, c]`` is ``[n, c, 1, 1]``, whose FRACTAL_Z is ``[ceil(c / c0), ceil(n / 16), 16, c0]``), else by
MindSpore's default (the dims are C, H, W in order: ``[a, b]`` is ``[1, a, b, 1]``); ori_format ``ND`` then.

Formats named as MindSpore's defaults (``DefaultFormat``, ``ND``, ``NCHW``, "") are left alone; any other format
raises UnsupportedError naming it.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from npusim.errors import OpValueError, UnsupportedError

FRACTAL = 16
#: C0 of a 1-byte dtype (int8, uint8); every other dtype has 16 (MindSpore's GetCubeSizeByType: the cube's 16 x 16
#: fractal in 2- and 4-byte dtypes alike, 16 x 32 for 1-byte ones)
C0_BYTE_DTYPES = 32
_DEFAULTS = ("", "DefaultFormat", "ND", "NCHW")
NZ, NC1HWC0, FRACTAL_Z = "FRACTAL_NZ", "NC1HWC0", "FRACTAL_Z"
_ORI_FORMAT = {NZ: "ND", NC1HWC0: "NCHW", FRACTAL_Z: "NCHW"}


@dataclass(frozen=True)
class Layout:
    """One tensor's format as the impl sees it: ``format``, the converted ``shape``, the caller's ``ori_shape``."""

    format: str
    shape: tuple
    ori_shape: tuple
    reshape_type: str = ""

    @property
    def ori_format(self) -> str:
        return "ND" if self.format != NZ and len(self.ori_shape) < 4 else _ORI_FORMAT[self.format]

    @property
    def nchw(self) -> tuple:
        """The 4-D shape the conversion works on (the caller's shape, padded as MindSpore pads it)."""
        return nchw(self.ori_shape, self.format, self.reshape_type)


def nchw(shape: tuple, fmt: str, reshape_type: str = "") -> tuple:
    """``shape`` padded to NCHW for ``fmt`` (NC1HWC0 / FRACTAL_Z) as MindSpore pads it (module docstring);
    other formats and 4-D shapes unchanged."""
    shape = tuple(int(x) for x in shape)
    if fmt not in (NC1HWC0, FRACTAL_Z) or len(shape) >= 4 or not shape:
        return shape
    axes = str(reshape_type or "").upper()
    if axes and len(axes) == len(shape) and set(axes) <= set("NCHW") and len(set(axes)) == len(axes):
        padded = [1, 1, 1, 1]
        for axis, dim in zip(axes, shape):
            padded["NCHW".index(axis)] = dim
        return tuple(padded)
    return (1, *shape) + (1,) * (3 - len(shape))      # MindSpore's default: the dims are C, H, W


def _c0(dtype) -> int:
    return C0_BYTE_DTYPES if np.dtype(dtype).itemsize == 1 else FRACTAL


def _up(value: int, unit: int) -> int:
    return -(-value // unit) * unit


def is_default(fmt: str) -> bool:
    return fmt in _DEFAULTS


def converted_shape(fmt: str, shape: tuple, dtype, reshape_type: str = "") -> tuple:
    """The shape of a ``shape`` tensor of ``dtype`` in ``fmt`` (``reshape_type``: how a shorter shape pads to
    NCHW)."""
    c0 = _c0(dtype)
    if fmt == NZ:
        if len(shape) < 2:
            raise OpValueError(f"format FRACTAL_NZ needs at least 2 dims, got {list(shape)}")
        *batch, r, c = shape
        return (*batch, _up(c, c0) // c0, _up(r, FRACTAL) // FRACTAL, FRACTAL, c0)
    if fmt in (NC1HWC0, FRACTAL_Z):
        shape = nchw(shape, fmt, reshape_type)
        if len(shape) != 4:
            raise OpValueError(f"format {fmt} needs an NCHW tensor (4-D, or fewer dims padded to it), got "
                               f"{list(shape)}")
        n, c, h, w = shape
        if fmt == NC1HWC0:
            return (n, _up(c, c0) // c0, h, w, c0)
        return (_up(c, c0) // c0 * h * w, _up(n, FRACTAL) // FRACTAL, FRACTAL, c0)
    raise UnsupportedError(f"format {fmt!r} of a Custom tbe op's dtype_format row is not converted by npusim "
                           f"(supported: FRACTAL_NZ, NC1HWC0, FRACTAL_Z and the default formats)")


def to_format(array: np.ndarray, fmt: str, reshape_type: str = "") -> np.ndarray:
    """``array`` (ND / NCHW) converted into ``fmt`` (zero padding)."""
    c0 = _c0(array.dtype)
    if fmt == NZ:
        *batch, r, c = array.shape
        rp, cp = _up(r, FRACTAL), _up(c, c0)
        padded = np.zeros((*batch, rp, cp), array.dtype)
        padded[..., :r, :c] = array
        nb = len(batch)
        split = padded.reshape(*batch, rp // FRACTAL, FRACTAL, cp // c0, c0)
        return np.ascontiguousarray(split.transpose(*range(nb), nb + 2, nb, nb + 1, nb + 3))
    n, c, h, w = nchw(array.shape, fmt, reshape_type)
    array = array.reshape(n, c, h, w)
    cp = _up(c, c0)
    if fmt == NC1HWC0:
        padded = np.zeros((n, cp, h, w), array.dtype)
        padded[:, :c] = array
        return np.ascontiguousarray(padded.reshape(n, cp // c0, c0, h, w).transpose(0, 1, 3, 4, 2))
    if fmt == FRACTAL_Z:
        np_ = _up(n, FRACTAL)
        padded = np.zeros((np_, cp, h, w), array.dtype)
        padded[:n, :c] = array
        blocks = padded.reshape(np_ // FRACTAL, FRACTAL, cp // c0, c0, h, w).transpose(2, 4, 5, 0, 1, 3)
        return np.ascontiguousarray(blocks.reshape(cp // c0 * h * w, np_ // FRACTAL, FRACTAL, c0))
    raise UnsupportedError(f"format {fmt!r} is not converted by npusim")


def from_format(array: np.ndarray, fmt: str, ori_shape: tuple, reshape_type: str = "") -> np.ndarray:
    """A kernel output in ``fmt`` (any shape with the converted size) back to the caller's ``ori_shape``."""
    shape = converted_shape(fmt, tuple(ori_shape), array.dtype, reshape_type)
    data = array.reshape(shape)
    if fmt == NZ:
        *batch, r, c = ori_shape
        nb = len(batch)
        c1, r1, _, c0 = shape[nb:]
        whole = data.transpose(*range(nb), nb + 1, nb + 2, nb, nb + 3).reshape(*batch, r1 * FRACTAL, c1 * c0)
        return np.ascontiguousarray(whole[..., :r, :c])
    n, c, h, w = nchw(tuple(ori_shape), fmt, reshape_type)
    if fmt == NC1HWC0:
        whole = data.transpose(0, 1, 4, 2, 3).reshape(n, -1, h, w)
        return np.ascontiguousarray(whole[:, :c].reshape(tuple(ori_shape)))
    c1hw, n1, _, c0 = shape
    whole = data.reshape(c1hw // (h * w), h, w, n1, FRACTAL, c0).transpose(3, 4, 0, 5, 1, 2)
    return np.ascontiguousarray(whole.reshape(n1 * FRACTAL, -1, h, w)[:n, :c].reshape(tuple(ori_shape)))


def row_layouts(row, in_arrays: list, out_shapes, out_dtypes, reshape_types: tuple = ((), ())) -> tuple:
    """(per input, per output) the :class:`Layout` a dtype_format ``row`` asks for, None for a default format;
    ``reshape_types``: (per input, per output) the reg info's ``reshape_type`` ("" where none)."""
    if row is None:
        return [None] * len(in_arrays), [None] * len(out_shapes)
    n = len(in_arrays)
    in_types = list(reshape_types[0]) + [""] * n
    out_types = list(reshape_types[1]) + [""] * len(out_shapes)
    ins = [None if is_default(col[1]) else
           Layout(col[1], converted_shape(col[1], a.shape, a.dtype, kind), tuple(a.shape), kind)
           for col, a, kind in zip(row[:n], in_arrays, in_types)]
    outs = [None if is_default(col[1]) else
            Layout(col[1], converted_shape(col[1], tuple(s), d, kind), tuple(int(x) for x in s), kind)
            for col, s, d, kind in zip(row[n:], out_shapes, out_dtypes, out_types)]
    return ins + [None] * (n - len(ins)), outs + [None] * (len(out_shapes) - len(outs))


__all__ = ["Layout", "converted_shape", "from_format", "is_default", "nchw", "row_layouts", "to_format"]
