"""What the host and the aot worker (:mod:`npusim.aot.worker_main`) exchange, and the shared arena's layout.

Messages are pickled tuples, each preceded by its length (4 bytes, little-endian), over a Unix stream socket:

==========================================================  ==============================================
host → worker                                               worker → host
==========================================================  ==============================================
("arena", size_bytes)              the arena grew           ("ok",)
("load", key, op_name, path, func_name, fixed_attrs)        ("ok",)
("infer", key, in_shapes, in_dtypes, WireAttrs)             ("ok", shape)
("launch", key, [TensorSlot], WireAttrs, [TensorSlot])      ("ok",)
==========================================================  ==============================================

Any request may be answered ("error", exception) instead; a worker that died answers nothing (end of stream).
The arena is one memfd both sides map: its first ``NOTE_BYTES`` hold the worker's crash note (text the worker's
crash handlers write before it dies), tensors follow at the offsets the host chose.
"""
from __future__ import annotations

import pickle
import struct
from dataclasses import dataclass

NOTE_BYTES = 4096
ALIGN_BYTES = 64
GUARD_BYTE = 0xA5
FRONT_GUARD_BYTES = 64
MIN_TAIL_GUARD_BYTES, MAX_TAIL_GUARD_BYTES = 64, 64 * 1024
_LENGTH = struct.Struct("<I")


@dataclass(frozen=True)
class WireAttrs:
    """A call's attribute names and values (the bridge reads ``.names`` / ``.values``)."""

    names: tuple = ()
    values: tuple = ()


@dataclass(frozen=True)
class TensorSlot:
    """A tensor in the arena: byte offset, shape, numpy dtype name."""

    offset: int
    shape: tuple
    dtype: str


def tail_guard_bytes(data_bytes: int) -> int:
    """Bytes of the guard zone after an output (the rule of csrc/output_guard.h: TailGuardBytes)."""
    tail = min(max(data_bytes, MIN_TAIL_GUARD_BYTES), MAX_TAIL_GUARD_BYTES)
    return (tail + 63) // 64 * 64


def aligned(offset: int) -> int:
    return (offset + ALIGN_BYTES - 1) // ALIGN_BYTES * ALIGN_BYTES


def send(sock, message) -> None:
    """Send one message (a picklable tuple)."""
    payload = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    sock.sendall(_LENGTH.pack(len(payload)) + payload)


def receive(sock):
    """The next message; EOFError when the other side closed the connection (or died)."""
    (length,) = _LENGTH.unpack(_receive_exactly(sock, _LENGTH.size))
    return pickle.loads(_receive_exactly(sock, length))


def _receive_exactly(sock, size: int) -> bytes:
    chunks, remaining = [], size
    while remaining:
        chunk = sock.recv(min(remaining, 1 << 20))
        if not chunk:
            raise EOFError("the connection was closed")
        chunks.append(chunk)
        remaining -= len(chunk)
    return b"".join(chunks)
