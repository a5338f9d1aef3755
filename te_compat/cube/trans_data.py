"""``trans_data`` on the simulator: the format conversions MindSpore inserts around a tbe op, as device kernels.

MindSpore converts a caller's ND / NCHW tensor into the format a kernel's dtype_format row declares (and back) with
a TransData operator on the device, so its time belongs in a profile.  :func:`run_trans_data` builds (once per
conversion, shape, dtype and target, in the runtime's cache) a one-block kernel whose body is one ``tvm_call``
program doing the conversion element by element, runs it on the runtime's device, and returns the converted array.
The program moves data only (the result equals :mod:`npusim.custom.backends.tbe_formats`' numpy conversion); its
cost is what the scalar unit would take, an upper bound of CANN's vector TransData.

Formats (``c0``: 32 for 1-byte dtypes, else 16, as MindSpore sizes it): FRACTAL_NZ of ``[..., r, c]`` is
``[..., c1, r1, 16, c0]``; NC1HWC0 of ``[n, c, h, w]`` is ``[n, c1, h, w, c0]``; FRACTAL_Z of an NCHW weight is
``[c1 * h * w, n1, 16, c0]`` (of a tensor of fewer dims: of its NCHW padding, which the caller reshapes it to).
"""
from __future__ import annotations

import numpy as np
from tvm import te, tirx

from npusim.errors import UnsupportedError
from te_compat.dsl.cube import FRACTAL, ceil_div

#: the runtime cache of trans_data kernels and its size
CACHE, ENTRIES = "cube.trans_data", 64
NZ, NC1HWC0, FRACTAL_Z = "FRACTAL_NZ", "NC1HWC0", "FRACTAL_Z"


def _c0(dtype: str, block_bytes: int) -> int:
    """C0 as MindSpore sizes it: one block of a 1-byte dtype (32), else 16 (float32 / int32 too)."""
    return block_bytes if np.dtype(dtype).itemsize == 1 else FRACTAL


def _to_format(src, fmt: str, shape: tuple, c0: int):
    """The te.compute of ``src`` (ND / NCHW ``shape``) in ``fmt``, zero padding."""
    zero = tirx.const(0, src.dtype)
    if fmt == NZ:
        *batch, r, c = shape
        nb = len(batch)

        def nz(*i):
            row, col = i[nb + 1] * FRACTAL + i[nb + 2], i[nb] * c0 + i[nb + 3]
            inside = tirx.all(row < r, col < c)
            return tirx.if_then_else(inside, src[(*i[:nb], tirx.min(row, r - 1), tirx.min(col, c - 1))], zero)
        return te.compute((*batch, ceil_div(c, c0), ceil_div(r, FRACTAL), FRACTAL, c0), nz, name="trans")
    n, c, h, w = shape
    if fmt == NC1HWC0:
        def five(b, c1, y, x, ci):
            ch = c1 * c0 + ci
            return tirx.if_then_else(ch < c, src[b, tirx.min(ch, c - 1), y, x], zero)
        return te.compute((n, ceil_div(c, c0), h, w, c0), five, name="trans")

    def frac_z(row, n1, ni, ci):
        c1, rest = row // (h * w), row % (h * w)
        ch, nn = c1 * c0 + ci, n1 * FRACTAL + ni
        inside = tirx.all(ch < c, nn < n)
        return tirx.if_then_else(inside, src[tirx.min(nn, n - 1), tirx.min(ch, c - 1), rest // w, rest % w], zero)
    return te.compute((ceil_div(c, c0) * h * w, ceil_div(n, FRACTAL), FRACTAL, c0), frac_z, name="trans")


def _from_format(src, fmt: str, ori_shape: tuple, c0: int):
    """The te.compute of ``src`` (in ``fmt``) back to the ``ori_shape`` tensor."""
    if fmt == NZ:
        nb = len(ori_shape) - 2

        def nd(*i):
            row, col = i[nb], i[nb + 1]
            return src[(*i[:nb], col // c0, row // FRACTAL, row % FRACTAL, col % c0)]
        return te.compute(tuple(ori_shape), nd, name="trans")
    n, c, h, w = ori_shape
    if fmt == NC1HWC0:
        return te.compute(tuple(ori_shape), lambda b, ch, y, x: src[b, ch // c0, y, x, ch % c0], name="trans")
    return te.compute(tuple(ori_shape), lambda nn, ch, y, x: src[(ch // c0) * h * w + y * w + x, nn // FRACTAL,
                                                                 nn % FRACTAL, ch % c0], name="trans")


def trans_data_kernel(fmt: str, to_fractal: bool, src_shape: tuple, dst_shape: tuple, dtype: str, chip):
    """The one-block npusim Kernel converting a ``src_shape`` tensor into ``fmt`` (``to_fractal``) or back to
    ``dst_shape``."""
    from npusim.sim.isa.tvm_call import program_kernel
    from npusim.sim.isa.tvm_call.text import program_text
    from npusim.sim.kernel import BufRef, Param
    if fmt not in (NZ, NC1HWC0, FRACTAL_Z):
        raise UnsupportedError(f"trans_data: format {fmt!r} is not modelled (FRACTAL_NZ, NC1HWC0, FRACTAL_Z)")
    c0 = _c0(dtype, chip.block_bytes)
    src = te.placeholder(src_shape, dtype, "src")
    out = _to_format(src, fmt, src_shape, c0) if to_fractal else _from_format(src, fmt, dst_shape, c0)
    text = program_text(te.create_prim_func([src, out]))
    params = (Param("src", "gm", dtype, tuple(src_shape)), Param("dst", "gm", dtype, tuple(int(d) for d in out.shape)))
    direction = "nd2frac" if to_fractal else "frac2nd"
    return program_kernel(f"trans_data_{fmt.lower()}_{direction}", text, params,
                          (BufRef("src"), BufRef("dst")))


def run_trans_data(array: np.ndarray, fmt: str, to_fractal: bool, ori_shape: tuple, runtime) -> np.ndarray:
    """``array`` converted into ``fmt`` (``to_fractal``; ``ori_shape`` unused) or from ``fmt`` back to
    ``ori_shape``, by a trans_data kernel on ``runtime``'s device (it shows in a profile)."""
    array = np.ascontiguousarray(array)
    dtype = array.dtype.name
    chip = runtime.target.chip
    key = (fmt, to_fractal, array.shape, tuple(ori_shape), dtype, runtime.target.key)
    cache = runtime.cache(CACHE, ENTRIES)
    kernel = cache.get(key)
    if kernel is None:
        src_shape = array.shape if to_fractal else _fractal_shape(fmt, tuple(ori_shape), dtype, chip, array.size)
        kernel = cache.put(key, trans_data_kernel(fmt, to_fractal, src_shape, tuple(ori_shape), dtype, chip))
    src_shape, dst = kernel.params[0].shape, kernel.params[1]
    device = runtime.device
    src_ptr = device.to_device(array.reshape(src_shape))
    nbytes = max(1, int(np.prod(dst.shape)) * array.dtype.itemsize)
    dst_ptr = device.malloc(nbytes)
    try:
        device.launch(kernel, [src_ptr, dst_ptr], block_dim=1)
        device.synchronize()
        return device.from_device(dst_ptr, dst.shape, dtype)
    finally:
        device.free(src_ptr)
        device.free(dst_ptr)


def _fractal_shape(fmt: str, ori_shape: tuple, dtype: str, chip, size: int) -> tuple:
    c0 = _c0(dtype, chip.block_bytes)
    if fmt == NZ:
        *batch, r, c = ori_shape
        shape = (*batch, ceil_div(c, c0), ceil_div(r, FRACTAL), FRACTAL, c0)
    elif fmt == NC1HWC0:
        n, c, h, w = ori_shape
        shape = (n, ceil_div(c, c0), h, w, c0)
    else:
        n, c, h, w = ori_shape
        shape = (ceil_div(c, c0) * h * w, ceil_div(n, FRACTAL), FRACTAL, c0)
    if int(np.prod(shape)) != size:
        raise UnsupportedError(f"trans_data: a {fmt} tensor of {list(ori_shape)} has {int(np.prod(shape))} "
                               f"elements, got {size}")
    return shape


__all__ = ["run_trans_data", "trans_data_kernel"]
