"""The bytes npusim sends to a kernel library's runtime, and the output descriptions it gets back.

Layout: see ``include/npusim_aicpu/call_abi.h`` (the C++ side decodes exactly this).  Also the tables mapping
numpy dtype names and MindSpore format names to CANN's ``DataType`` / ``Format`` codes, and the conversion of
attribute values (by their reg-info type) to the ``AttrValue`` kinds.
"""
from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from npusim.errors import AicpuAttrError

MAGIC = b"NPK1"

#: numpy dtype name → CANN DataType code
DTYPE_CODES = {
    "float32": 0, "float16": 1, "int8": 2, "int32": 3, "uint8": 4, "int16": 6, "uint16": 7, "uint32": 8,
    "int64": 9, "uint64": 10, "float64": 11, "bool": 12, "complex64": 16, "complex128": 17,
}
CODE_DTYPES = {code: name for name, code in DTYPE_CODES.items()}

#: MindSpore / CANN format name → CANN Format code ("DefaultFormat" is ND)
FORMAT_CODES = {
    "NCHW": 0, "NHWC": 1, "ND": 2, "DefaultFormat": 2, "": 2, "NC1HWC0": 3, "FRACTAL_Z": 4, "C1HWNC0": 9,
    "HWCN": 16, "C1HWNCoC0": 25, "NDHWC": 27, "FRACTAL_NZ": 29, "NCDHW": 30, "DHWCN": 31, "NDC1HWC0": 32,
    "FRACTAL_Z_3D": 33, "FRACTAL_ZN_LSTM": 38, "ChannelLast": 1,
}
FORMAT_ND = 2

# AttrValue kinds (NpusimAicpuAttrKind)
ATTR_INT, ATTR_FLOAT, ATTR_BOOL, ATTR_STR, ATTR_DTYPE = 1, 2, 3, 4, 5
ATTR_LIST_INT, ATTR_LIST_FLOAT, ATTR_LIST_BOOL, ATTR_LIST_STR, ATTR_LIST_DTYPE = 11, 12, 13, 14, 15
ATTR_LIST_LIST_INT = 21

_TENSOR_HEAD = struct.Struct("<iiIIQQ")
_RESULT_HEAD = struct.Struct("<iIQ")


@dataclass(frozen=True)
class TensorDesc:
    """One tensor as the kernel sees it: CANN dtype/format codes, dims, and its bytes in the shared memory."""

    dtype_code: int
    format_code: int
    dims: tuple
    offset: int
    size_bytes: int
    unknown_rank: bool = False

    def encode(self) -> bytes:
        head = _TENSOR_HEAD.pack(self.dtype_code, self.format_code, 1 if self.unknown_rank else 0,
                                 len(self.dims), self.offset, self.size_bytes)
        return head + struct.pack(f"<{len(self.dims)}q", *self.dims)


@dataclass(frozen=True)
class OutputResult:
    """An output after the call: its dtype code, the shape the kernel left it with, and its size in bytes."""

    dtype_code: int
    dims: tuple
    size_bytes: int


def _str(text: str) -> bytes:
    data = text.encode()
    return struct.pack("<I", len(data)) + data


def encode_request(op_type: str, inputs: Sequence[TensorDesc], outputs: Sequence[TensorDesc],
                   attrs_blob: bytes, n_attrs: int) -> bytes:
    """The request RunCpuKernel decodes: header, op type, tensors (inputs then outputs), encoded attributes."""
    parts = [MAGIC, struct.pack("<III", len(inputs), len(outputs), n_attrs), _str(op_type)]
    parts += [t.encode() for t in inputs]
    parts += [t.encode() for t in outputs]
    parts.append(attrs_blob)
    return b"".join(parts)


def decode_results(data: bytes | memoryview, n_outputs: int) -> list[OutputResult]:
    """Parse the runtime's output descriptions (one per output, in order)."""
    results, pos = [], 0
    for _ in range(n_outputs):
        dtype_code, rank, size_bytes = _RESULT_HEAD.unpack_from(data, pos)
        pos += _RESULT_HEAD.size
        dims = struct.unpack_from(f"<{rank}q", data, pos)
        pos += 8 * rank
        results.append(OutputResult(dtype_code, tuple(dims), size_bytes))
    return results


# ---- attributes ------------------------------------------------------------------------------------------------
def _is_int(value) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def _is_float(value) -> bool:
    return isinstance(value, (float, np.floating)) or _is_int(value)


def _is_bool(value) -> bool:
    return isinstance(value, (bool, np.bool_))


_SCALAR_KINDS = {
    "int": (ATTR_INT, lambda v: _is_int(v) or _is_bool(v), lambda v: struct.pack("<q", int(v))),
    "float": (ATTR_FLOAT, lambda v: _is_float(v), lambda v: struct.pack("<f", float(v))),
    "bool": (ATTR_BOOL, _is_bool, lambda v: struct.pack("<B", 1 if v else 0)),
    "str": (ATTR_STR, lambda v: isinstance(v, str), _str),
}
_LIST_KINDS = {"listInt": ("int", ATTR_LIST_INT), "listFloat": ("float", ATTR_LIST_FLOAT),
               "listBool": ("bool", ATTR_LIST_BOOL), "listStr": ("str", ATTR_LIST_STR)}


def _infer_type(value) -> str:
    """The reg-info type of a value given for an "all"-typed (or undeclared) attribute."""
    if _is_bool(value):
        return "bool"
    if _is_int(value):
        return "int"
    if isinstance(value, (float, np.floating)):
        return "float"
    if isinstance(value, str):
        return "str"
    if isinstance(value, (list, tuple, np.ndarray)):
        items = list(value)
        if items and all(isinstance(v, (list, tuple)) for v in items):
            return "listListInt"
        for kind in ("bool", "int", "float", "str"):
            if items and all(_infer_type(v) == kind for v in items):
                return "list" + kind.capitalize()
        if items and all(_is_float(v) for v in items):
            return "listFloat"
        if not items:
            return "listInt"
    return "unknown"


def encode_attr(op_type: str, name: str, value: Any, value_type: str | None) -> bytes:
    """One attribute as (name, kind, payload); ``value_type`` is the reg-info type ("int", "listFloat", "all" ...).

    Raises AicpuAttrError when the value does not fit the type.
    """
    declared = value_type if value_type and value_type != "all" else _infer_type(value)
    where = f"AICPU op '{op_type}', attribute '{name}'"
    if declared in _SCALAR_KINDS:
        kind, accepts, pack = _SCALAR_KINDS[declared]
        if not accepts(value):
            raise AicpuAttrError(f"{where}: expected a {declared}, got {type(value).__name__} {value!r}")
        return _str(name) + struct.pack("<I", kind) + pack(value)
    if declared in _LIST_KINDS:
        item_type, kind = _LIST_KINDS[declared]
        items = list(value) if isinstance(value, (list, tuple, np.ndarray)) else None
        _, accepts, pack = _SCALAR_KINDS[item_type]
        if items is None or not all(accepts(v) for v in items):
            raise AicpuAttrError(f"{where}: expected a list of {item_type}, got {value!r}")
        return _str(name) + struct.pack("<II", kind, len(items)) + b"".join(pack(v) for v in items)
    if declared == "listListInt":
        rows = list(value) if isinstance(value, (list, tuple)) else None
        if rows is None or not all(isinstance(r, (list, tuple)) and all(_is_int(v) for v in r) for r in rows):
            raise AicpuAttrError(f"{where}: expected a list of int lists, got {value!r}")
        body = b"".join(struct.pack(f"<I{len(r)}q", len(r), *map(int, r)) for r in rows)
        return _str(name) + struct.pack("<II", ATTR_LIST_LIST_INT, len(rows)) + body
    raise AicpuAttrError(f"{where}: cannot pass {type(value).__name__} {value!r} (reg-info type "
                         f"{value_type!r}) to an AICPU kernel")


def encode_attrs(op_type: str, items: Sequence[tuple[str, Any, str | None]]) -> tuple[bytes, int]:
    """Encode (name, value, reg-info type) triples; None values are left out (the kernel sees no attribute)."""
    blobs = [encode_attr(op_type, name, value, value_type) for name, value, value_type in items
             if value is not None]
    return b"".join(blobs), len(blobs)
