"""Helpers shared by the tests of npusim.sim: one-instruction kernels over a UB image, and a sequential reference
of vector addressing written element by element (independent of the simulator's vectorised plans)."""
from __future__ import annotations

import numpy as np

from npusim.sim import Device, KernelBuilder, get_chip

UB_ELEMS_F16 = 16384  # the test UB image: 32 KiB


def run_on_ub(opcode: str, image: np.ndarray, operands: dict, chip="Ascend910", views=None, extra=None,
              overflow_mode=None):
    """Run one instruction on a UB holding ``image`` (any dtype, bytes copied in/out through GM); return the UB.
    ``overflow_mode``: run the chip in that overflow mode (default: the chip's own).

    Tensor operands are given as element offsets (ints) into the image, or (offset, dtype) to view the UB as
    another dtype.  ``extra``: callable(kb, ub) adding instructions after the one under test.
    """
    chip = get_chip(chip)
    kb = KernelBuilder(f"t_{opcode}")
    nbytes = image.nbytes
    gm = kb.tensor("uint8", (nbytes,), "GM", "mem")
    ub = kb.tensor("uint8", (nbytes,), "UB", "ub")
    kb.data_move(ub, gm, 0, 1, nbytes // 32, 0, 0)
    dtype = str(image.dtype)
    args = {}
    for name, value in operands.items():
        if isinstance(value, tuple) and len(value) == 2 and isinstance(value[1], str):
            args[name] = ub.reinterpret_cast_to(value[1])[value[0]]
        elif name in _TENSOR_OPERANDS and isinstance(value, (int, np.integer)) and not isinstance(value, bool):
            args[name] = ub.reinterpret_cast_to(dtype)[int(value)]
        else:
            args[name] = value
    kb.emit(opcode, **args)
    if extra is not None:
        extra(kb, ub)
    kb.data_move(gm, ub, 0, 1, nbytes // 32, 0, 0)
    kernel = kb.build(inputs=[gm], outputs=[], check=False)
    device = Device(chip, overflow_mode=overflow_mode)
    ptr = device.to_device(image)
    record = device.run(kernel, [ptr])
    return device.from_device(ptr, image.shape, image.dtype), record


_TENSOR_OPERANDS = {"dst", "src", "src0", "src1", "sel"}


def lanes_of(mask, lanes: int) -> list:
    if isinstance(mask, (tuple, list)):
        high, low = mask
        return [l for l in range(lanes) if ((low >> l) & 1 if l < 64 else (high >> (l - 64)) & 1)]
    return list(range(mask))


def address(start: int, r: int, lane: int, blk: int, rep: int, isz: int) -> int:
    per_block = 32 // isz
    return start + r * rep * per_block + (lane // per_block) * blk * per_block + lane % per_block


def ref_elementwise(image, func, dst, srcs, mask, repeat, strides, lanes=None, dst_reads=False, isz=None):
    """Sequential reference: for each repeat, read the sources' active lanes, then write dst's.

    strides: {operand: (blk, rep)} for "dst" and each of srcs (list of (name, start)).  isz: the itemsize the
    addresses are computed with (default: the image's; pass it when the image is a widened copy).
    """
    mem = image.copy()
    isz = isz or mem.dtype.itemsize
    lanes = lanes or 256 // isz
    active = lanes_of(mask, lanes)
    for r in range(repeat):
        values = []
        for lane in active:
            args = [mem[address(start, r, lane, *strides[name], isz)] for name, start in srcs]
            if dst_reads:
                args.append(mem[address(dst, r, lane, *strides["dst"], isz)])
            values.append(func(*args))
        for lane, value in zip(active, values):
            mem[address(dst, r, lane, *strides["dst"], isz)] = value
    return mem


def pack_a(a, k0=16):
    """A (m x k) into L0A's zZ fractal layout [M1, K1, 16, K0], zero-padded."""
    m, k = a.shape
    m1, k1 = -(-m // 16), -(-k // k0)
    padded = np.zeros((m1 * 16, k1 * k0), a.dtype)
    padded[:m, :k] = a
    return padded.reshape(m1, 16, k1, k0).transpose(0, 2, 1, 3).copy()


def pack_b(b, k0=16):
    """B (k x n) into L0B's nZ fractal layout [K1, N1, 16, K0], zero-padded."""
    k, n = b.shape
    k1, n1 = -(-k // k0), -(-n // 16)
    padded = np.zeros((k1 * k0, n1 * 16), b.dtype)
    padded[:k, :n] = b
    return padded.reshape(k1, k0, n1, 16).transpose(0, 2, 3, 1).copy()


def unpack_c(c, m, n):
    """C from L0C's zN fractal layout [N1, M1, 16, 16] back to (m x n)."""
    n1, m1 = c.shape[:2]
    return c.transpose(1, 2, 0, 3).reshape(m1 * 16, n1 * 16)[:m, :n]


def run_mode(kernel, arrays, chip, mode, monkeypatch, block_dim):
    """Run ``kernel`` on fresh copies' device memory with the executor in ``mode`` ("lockstep" raises instead of
    falling back, "reference" runs block by block): (GM arrays after the run, per-block trace records)."""
    from npusim.sim import executor
    monkeypatch.setattr(executor, "DEFAULT_MODE", mode)
    device = Device(get_chip(chip))
    ptrs = [device.to_device(a) for a in arrays]
    record = device.run(kernel, ptrs, block_dim=block_dim)
    out = [device.from_device(p, a.shape, a.dtype) for p, a in zip(ptrs, arrays)]
    return out, [(b.block, b.core, list(b.records)) for b in record.trace.blocks]


def same_as_reference(kernel, arrays, chip, monkeypatch, block_dim):
    """Run in lockstep and block by block; GM bytes and per-block traces must be identical.  Returns the
    reference's GM arrays."""
    fast, fast_trace = run_mode(kernel, [a.copy() for a in arrays], chip, "lockstep", monkeypatch, block_dim)
    ref, ref_trace = run_mode(kernel, [a.copy() for a in arrays], chip, "reference", monkeypatch, block_dim)
    for a, b in zip(fast, ref):
        assert a.tobytes() == b.tobytes()
    assert fast_trace == ref_trace
    return ref


def tree_sum(values, dtype, saturates):
    """Adjacent pairs, level by level, each sum rounded to dtype; on a saturating chip a float sum that overflows
    becomes +-max (65504 for float16) and NaN becomes 0, else IEEE."""
    level = [dtype.type(v) for v in values]
    while len(level) > 1:
        nxt = []
        for a, b in zip(level[0::2], level[1::2]):
            with np.errstate(over="ignore", invalid="ignore"):
                s = dtype.type(a + b)
            if saturates and dtype.kind == "f" and not np.isfinite(s):
                s = dtype.type(0) if np.isnan(s) else np.finfo(dtype).max * dtype.type(1 if s > 0 else -1)
            nxt.append(s)
        level = nxt
    return level[0]


def run_reduction(opcode, dtype, mask, blk, rep, dst_rep, repeat, chip, rng, reference):
    """Run a per-repeat reduction on a 16 KiB UB image (float16: partial sums that overflow seeded up front) with
    dst in its upper half; returns (device output, reference(img, opcode, mask, blk, rep, dst_rep, saturates)),
    both viewed as unsigned integers of the dtype's width for a bit-for-bit comparison."""
    img = rng.uniform(-100, 100, 16384 // np.dtype(dtype).itemsize).astype(dtype)
    if dtype == "float16":
        img[:8] = [60000, 60000, -30000, 100, 65504, 65504, 1, 1]      # partial sums overflow (910: saturate)
    ops = dict(mask=mask, dst=img.size // 2, src=0, repeat_times=repeat, dst_rep_stride=dst_rep,
               src_blk_stride=blk, src_rep_stride=rep)
    out, _ = run_on_ub(opcode, img, ops, chip=chip)
    want = reference(img, opcode, mask, blk, rep, dst_rep, get_chip(chip).saturates)
    return out.view(f"u{img.itemsize}"), want.view(f"u{img.itemsize}")
