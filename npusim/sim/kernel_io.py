"""Kernel serialisation: JSON text, and a binary file ``MAGIC | u16 version | u16 flags | u32 length | zlib(JSON)``.

The binary form is what the TBE/TIK layers write into ``kernel_meta/<name>.o``.  Loading checks the magic and the
version and raises :class:`KernelFormatError` on anything malformed.  A parameter's ``atomic_clean`` flag is
written only when set (files without it read as not clean).
"""
from __future__ import annotations

import json
import math
import struct
import zlib
from pathlib import Path

from npusim.errors.sim import KernelFormatError
from npusim.sim.kernel import (BIN_OPS, FORMAT_VERSION, UN_OPS, BinOp, Buffer, BufRef, Cast, If, Instr, Kernel,
                               Loop, Param, ScalarReg, UnOp, Var)

MAGIC = b"\x7fNPUSIMK"
_HEADER = struct.Struct("<8sHHI")


def _enc(value):
    """Encode an operand value (expression, BufRef, tuple, number, str) as JSON-able data."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else {"float": repr(value)}
    if isinstance(value, Var):
        return {"var": value.name}
    if isinstance(value, BinOp):
        return {"bin": value.op, "a": _enc(value.lhs), "b": _enc(value.rhs)}
    if isinstance(value, UnOp):
        return {"un": value.op, "a": _enc(value.arg)}
    if isinstance(value, Cast):
        return {"cast": value.dtype, "a": _enc(value.arg)}
    if isinstance(value, BufRef):
        return {"ref": value.buffer, "off": _enc(value.offset), "dtype": value.dtype}
    if isinstance(value, tuple):
        return {"tuple": [_enc(v) for v in value]}
    raise KernelFormatError(f"cannot serialise operand value {value!r} of type {type(value).__name__}")


def _dec(data):
    """Inverse of :func:`_enc`."""
    if data is None or isinstance(data, (bool, int, float, str)):
        return data
    if not isinstance(data, dict):
        raise KernelFormatError(f"malformed operand value {data!r}")
    if "var" in data:
        return Var(str(data["var"]))
    if "bin" in data:
        if data["bin"] not in BIN_OPS:
            raise KernelFormatError(f"unknown binary operator {data['bin']!r}")
        return BinOp(data["bin"], _dec(data["a"]), _dec(data["b"]))
    if "un" in data:
        if data["un"] not in UN_OPS:
            raise KernelFormatError(f"unknown unary operator {data['un']!r}")
        return UnOp(data["un"], _dec(data["a"]))
    if "cast" in data:
        return Cast(str(data["cast"]), _dec(data["a"]))
    if "ref" in data:
        return BufRef(str(data["ref"]), _dec(data.get("off", 0)), data.get("dtype"))
    if "tuple" in data:
        return tuple(_dec(v) for v in data["tuple"])
    if "float" in data:
        return float(data["float"])
    raise KernelFormatError(f"malformed operand value {data!r}")


def _enc_stmt(stmt) -> dict:
    if isinstance(stmt, Instr):
        return {"instr": stmt.opcode, "args": [[k, _enc(v)] for k, v in stmt.args]}
    if isinstance(stmt, Loop):
        return {"loop": stmt.var, "begin": _enc(stmt.begin), "end": _enc(stmt.end),
                "body": [_enc_stmt(s) for s in stmt.body]}
    if isinstance(stmt, If):
        return {"if": _enc(stmt.cond), "then": [_enc_stmt(s) for s in stmt.then_body],
                "else": [_enc_stmt(s) for s in stmt.else_body]}
    raise KernelFormatError(f"not a statement: {stmt!r}")


def _dec_stmt(data):
    if not isinstance(data, dict):
        raise KernelFormatError(f"malformed statement {data!r}")
    if "instr" in data:
        return Instr(str(data["instr"]), tuple((str(k), _dec(v)) for k, v in data.get("args", [])))
    if "loop" in data:
        return Loop(str(data["loop"]), _dec(data["begin"]), _dec(data["end"]),
                    tuple(_dec_stmt(s) for s in data.get("body", [])))
    if "if" in data:
        return If(_dec(data["if"]), tuple(_dec_stmt(s) for s in data.get("then", [])),
                  tuple(_dec_stmt(s) for s in data.get("else", [])))
    raise KernelFormatError(f"malformed statement {data!r}")


def _enc_param(param: Param) -> dict:
    data = {"name": param.name, "kind": param.kind, "dtype": param.dtype, "shape": list(param.shape)}
    if param.atomic_clean:
        data["atomic_clean"] = True
    return data


def _dec_param(data: dict) -> Param:
    clean = data.get("atomic_clean", False)
    if not isinstance(clean, bool):
        raise KernelFormatError(f"parameter {data.get('name')!r}: atomic_clean must be true or false, got {clean!r}")
    return Param(str(data["name"]), str(data["kind"]), str(data["dtype"]), tuple(int(d) for d in data["shape"]),
                 clean)


def kernel_to_dict(kernel: Kernel) -> dict:
    """The kernel as JSON-able data."""
    return {
        "format": "npusim-kernel", "version": kernel.version, "name": kernel.name, "block_dim": kernel.block_dim,
        "params": [_enc_param(p) for p in kernel.params],
        "buffers": [{"name": b.name, "scope": b.scope, "dtype": b.dtype, "shape": list(b.shape),
                     "addr_bytes": b.addr_bytes} for b in kernel.buffers],
        "scalars": [{"name": s.name, "dtype": s.dtype} for s in kernel.scalars],
        "body": [_enc_stmt(s) for s in kernel.body],
    }


def kernel_from_dict(data: dict) -> Kernel:
    """Rebuild a kernel from :func:`kernel_to_dict` data; raises KernelFormatError when malformed."""
    if not isinstance(data, dict) or data.get("format") != "npusim-kernel":
        raise KernelFormatError("not an npusim kernel description (missing format: npusim-kernel)")
    if data.get("version") != FORMAT_VERSION:
        raise KernelFormatError(f"kernel format version {data.get('version')!r} is not supported "
                                f"(this npusim reads version {FORMAT_VERSION})")
    try:
        return Kernel(
            name=str(data["name"]),
            params=tuple(_dec_param(p) for p in data["params"]),
            buffers=tuple(Buffer(str(b["name"]), str(b["scope"]), str(b["dtype"]),
                                 tuple(int(d) for d in b["shape"]), int(b["addr_bytes"])) for b in data["buffers"]),
            scalars=tuple(ScalarReg(str(s["name"]), str(s["dtype"])) for s in data.get("scalars", [])),
            body=tuple(_dec_stmt(s) for s in data["body"]),
            block_dim=int(data.get("block_dim", 1)),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise KernelFormatError(f"malformed kernel description: {exc!r}") from exc


def kernel_to_json(kernel: Kernel) -> str:
    return json.dumps(kernel_to_dict(kernel), separators=(",", ":"))


def kernel_from_json(text: str) -> Kernel:
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise KernelFormatError(f"kernel JSON does not parse: {exc}") from exc
    return kernel_from_dict(data)


def kernel_to_bytes(kernel: Kernel) -> bytes:
    payload = zlib.compress(kernel_to_json(kernel).encode("utf-8"), 6)
    return _HEADER.pack(MAGIC, FORMAT_VERSION, 0, len(payload)) + payload


def kernel_from_bytes(blob: bytes) -> Kernel:
    """Parse a binary kernel file's contents (checks magic, version and length)."""
    if len(blob) < _HEADER.size:
        raise KernelFormatError(f"kernel file too short ({len(blob)} bytes)")
    magic, version, _flags, length = _HEADER.unpack_from(blob)
    if magic != MAGIC:
        raise KernelFormatError(f"not an npusim kernel file (magic {magic!r}, expected {MAGIC!r})")
    if version != FORMAT_VERSION:
        raise KernelFormatError(f"kernel file version {version} is not supported (reads {FORMAT_VERSION})")
    payload = blob[_HEADER.size:]
    if len(payload) != length:
        raise KernelFormatError(f"kernel file truncated: payload {len(payload)} bytes, header says {length}")
    try:
        text = zlib.decompress(payload).decode("utf-8")
    except (zlib.error, UnicodeDecodeError) as exc:
        raise KernelFormatError(f"kernel file payload is corrupt: {exc}") from exc
    return kernel_from_json(text)


def save_kernel(kernel: Kernel, path) -> None:
    Path(path).write_bytes(kernel_to_bytes(kernel))


def load_kernel(path) -> Kernel:
    """Read a kernel file written by :meth:`Kernel.save`."""
    return kernel_from_bytes(Path(path).read_bytes())
