"""Call plans: everything about an AICPU call that does not depend on tensor values, computed once per signature.

A plan fixes where each tensor lives in the shared memory, the encoded request the kernel library decodes, and
the output buffers.  Running a plan then only copies input values in and output values out (worker.py), which
keeps a call at a few microseconds of Python on top of the process round trip.

Shared-memory layout (offsets in bytes)::

    [0, 8)                      u64 log size (bytes of log text the current call has written)
    [LOG_OFFSET, +LOG_CAPACITY) log text
    [DATA_OFFSET, ...)          inputs, then outputs each followed by its guard zone (every tensor 64-byte
                                aligned), then the encoded request

A guard zone starts right at the end of its output's buffer and runs for at least GUARD_MIN_BYTES up to the next
aligned offset.  The worker fills the zones with a pattern before each call and checks them after it, so a kernel
that writes past an output is reported (:class:`~npusim.errors.AicpuOutputOverrunError`) instead of silently
changing the next output.
"""
from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from aicpu_loader import protocol
from npusim.errors import OpTypeError

LOG_SIZE_OFFSET = 0
LOG_OFFSET = 64
LOG_CAPACITY = 64 * 1024
DATA_OFFSET = LOG_OFFSET + LOG_CAPACITY
ALIGN_BYTES = 64
#: the least room between the end of an output's buffer and the next tensor that the worker checks for writes
GUARD_MIN_BYTES = 256

_CODE_OF_DTYPE = {np.dtype(name): code for name, code in protocol.DTYPE_CODES.items()}

#: the worker's CALL request: u32 kind, u32 path_len, u64 request_offset, u64 request_size, path bytes,
#: u32 n_guards, n_guards x (u64 offset, u64 size_bytes)
REQ_CALL = 1
_CALL_HEAD = struct.Struct("<IIQQ")
_GUARD = struct.Struct("<QQ")


@dataclass(frozen=True)
class OutputSpec:
    """An output buffer to allocate: dtype name, declared dims (negative = dynamic), room in bytes, format."""

    dtype: str
    dims: tuple
    capacity_bytes: int
    unknown_rank: bool = False
    format_code: int = protocol.FORMAT_ND


@dataclass(frozen=True)
class TensorSlot:
    """Where one tensor lives in the shared memory, and its declared shape and dtype; for an output also the guard
    zone after its buffer (``guard_bytes`` from ``offset + size_bytes``)."""

    offset: int
    size_bytes: int
    shape: tuple
    dtype: np.dtype
    dtype_code: int
    guard_bytes: int = 0


class CallPlan:
    """A prepared call of ``op_type`` from ``library``: slots, the encoded request, where it goes, and the CALL
    message that hands it to the worker.

    Immutable after construction except for caches tied to one shared-memory mapping (``views_epoch`` names it;
    the worker calls :meth:`bind` after a remap): ``views`` (numpy views of the input slots), and the last reply's
    result bytes (``last_result``) with ``out_views``, the output slots shaped and typed as that reply described.
    """

    __slots__ = ("library", "op_type", "inputs", "outputs", "request", "request_offset", "end_bytes", "message",
                 "views", "views_epoch", "out_views", "last_result")

    def __init__(self, library: str, op_type: str, inputs: tuple, outputs: tuple, request: bytes,
                 request_offset: int):
        self.library = library
        self.op_type = op_type
        self.inputs: tuple[TensorSlot, ...] = inputs
        self.outputs: tuple[TensorSlot, ...] = outputs
        self.request = request
        self.request_offset = request_offset
        self.end_bytes = request_offset + len(request)
        path = library.encode()
        guards = [_GUARD.pack(s.offset + s.size_bytes, s.guard_bytes) for s in outputs]
        self.message = b"".join([_CALL_HEAD.pack(REQ_CALL, len(path), request_offset, len(request)), path,
                                 struct.pack("<I", len(guards)), *guards])
        self.views: tuple = ()
        self.views_epoch = -1
        self.out_views: tuple = ()
        self.last_result: bytes | None = None

    def bind(self, mapping, epoch: int) -> None:
        """Point the input views at ``mapping`` (a buffer holding this plan's slots) and forget cached replies."""
        self.views = tuple(np.ndarray(s.shape, s.dtype, buffer=mapping, offset=s.offset) if s.size_bytes else None
                           for s in self.inputs)
        self.views_epoch = epoch
        self.out_views = ()
        self.last_result = None


def align(value: int) -> int:
    """``value`` rounded up to ALIGN_BYTES."""
    return (value + ALIGN_BYTES - 1) // ALIGN_BYTES * ALIGN_BYTES


def dtype_code(dtype: np.dtype, op_type: str, what: str) -> int:
    """CANN DataType code of a numpy dtype; OpTypeError naming the op when AICPU kernels cannot take it."""
    code = _CODE_OF_DTYPE.get(np.dtype(dtype))
    if code is None:
        raise OpTypeError(f"AICPU op '{op_type}': {what} has dtype {np.dtype(dtype).name}, which AICPU kernels "
                          f"cannot use (supported: {', '.join(protocol.DTYPE_CODES)})")
    return code


def plan_call(library: str, op_type: str, input_specs: Sequence[tuple[tuple, np.dtype]],
              outputs: Sequence[OutputSpec], attrs_blob: bytes = b"", n_attrs: int = 0,
              input_formats: Sequence[int] | None = None) -> CallPlan:
    """Plan a call: inputs given as (shape, dtype) pairs, outputs as OutputSpecs, attributes already encoded
    (:func:`aicpu_loader.protocol.encode_attrs`), input formats as CANN Format codes (default ND)."""
    offset = DATA_OFFSET
    in_slots, out_slots, in_descs, out_descs = [], [], [], []
    for i, (shape, dtype) in enumerate(input_specs):
        dtype = np.dtype(dtype)
        shape = tuple(int(d) for d in shape)
        size = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
        code = dtype_code(dtype, op_type, f"input {i}")
        fmt = input_formats[i] if input_formats else protocol.FORMAT_ND
        in_slots.append(TensorSlot(offset, size, shape, dtype, code))
        in_descs.append(protocol.TensorDesc(code, fmt, shape, offset, size))
        offset = align(offset + size)
    for i, spec in enumerate(outputs):
        dtype = np.dtype(spec.dtype)
        code = dtype_code(dtype, op_type, f"output {i}")
        end = offset + spec.capacity_bytes
        guard_end = align(end + GUARD_MIN_BYTES)
        out_slots.append(TensorSlot(offset, spec.capacity_bytes, tuple(spec.dims), dtype, code, guard_end - end))
        out_descs.append(protocol.TensorDesc(code, spec.format_code, tuple(spec.dims), offset, spec.capacity_bytes,
                                             spec.unknown_rank))
        offset = guard_end
    request = protocol.encode_request(op_type, in_descs, out_descs, attrs_blob, n_attrs)
    return CallPlan(library, op_type, tuple(in_slots), tuple(out_slots), request, align(offset))
