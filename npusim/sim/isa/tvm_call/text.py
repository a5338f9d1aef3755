"""The serialised form of a ``tvm_call`` program, and the one-instruction kernel that runs it.

A program is the TVMScript text of a TIR PrimFunc (``func.script()``), which ``tvm.script.from_source`` parses
back.  :func:`program_text` additionally marks every tensor parameter as element-aligned (``align=<itemsize>``)
so the compiled code accepts GM tensors at any address without copies; it keeps the text only if parsing and
printing it again gives the same text (a stable form), else returns the plain printed text (still correct:
misaligned tensors are then copied around the call).
"""
from __future__ import annotations

import numpy as np

from npusim.errors.sim import InvalidOperandError
from npusim.sim.kernel import Instr, Kernel

OPCODE = "tvm_call"


def program_text(func) -> str:
    """Stable TVMScript text of ``func`` whose tensor parameters assume element alignment only."""
    return program_text_and_func(func)[0]


def program_text_and_func(func) -> tuple:
    """(:func:`program_text` of ``func``, the PrimFunc parsed from that text or None when it was not parsed)."""
    try:
        text = func.script()
    except Exception as exc:  # the printer raises TVMError on IR it cannot print
        raise InvalidOperandError(f"tvm_call: TVM cannot print the program as TVMScript: {exc}") from None
    aligned = _element_aligned(text, func)
    return aligned if aligned is not None else (text, None)


def _itemsize(dtype: str):
    try:
        return np.dtype(dtype).itemsize
    except TypeError:
        return None


def _element_aligned(text: str, func):
    """(``text`` with ``align=<itemsize>`` on each tensor parameter, its parsed PrimFunc or None), verified;
    None when it cannot be done.  Parameters are found in order in the ``def`` line (the printer may rename
    them, e.g. ``I`` -> ``I_1``, as ``I`` and ``T`` are TVMScript's own names)."""
    from npusim.sim.isa.tvm_call.program import parse_text
    head, sep, rest = text.partition("\ndef ")
    signature, colon, body = rest.partition(":\n")
    if not sep or not colon:
        return None
    wanted, cursor = [], 0
    for param in func.params:
        if type(param.ty).__name__ != "BufferType":
            continue
        itemsize = _itemsize(str(param.dtype))
        if itemsize is None or any(type(d).__name__ != "IntImm" for d in param.shape):
            return None
        wanted.append(min(itemsize, int(param.data_alignment)))
        if int(param.data_alignment) <= itemsize:
            continue
        token = f': T.Buffer({tuple(int(d) for d in param.shape)!r}, "{param.dtype}")'
        at = signature.find(token, cursor)
        if at < 0:
            return None
        cursor = at + len(token) - 1
        signature = f"{signature[:cursor]}, align={itemsize}{signature[cursor:]}"
    aligned_text = f"{head}{sep}{signature}{colon}{body}"
    if aligned_text == text:
        return text, None
    try:
        parsed = parse_text(aligned_text)
        stable = parsed.script() == aligned_text
    except InvalidOperandError:
        return None
    aligns = [int(p.data_alignment) for p in parsed.params if type(p.ty).__name__ == "BufferType"]
    return (aligned_text, parsed) if stable and aligns == wanted else None


def program_kernel(name: str, text: str, params: tuple, args: tuple) -> Kernel:
    """A kernel of one ``tvm_call`` instruction running ``text`` on ``args`` (BufRefs to GM ``params`` and scalar
    expressions, in the prim func's parameter order).  One block: the program covers the whole tensors."""
    body = (Instr(OPCODE, (("program", text), ("args", tuple(args)))),)
    return Kernel(name=name, params=tuple(params), buffers=(), scalars=(), body=body, block_dim=1)
