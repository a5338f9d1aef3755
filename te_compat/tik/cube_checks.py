"""Operand checks shared by TIK's cube instructions (matmul, mmad, load2dv1, fixpipe), with TIK's texts.

TIK names dtype combinations by joining its short dtype names ("f16f16f32") and rejects one the chip lacks with
"current chip not support {combo} for Intrinsic {name}".
"""
from __future__ import annotations

from npusim.errors.tik import (TikAlignmentError, TikDtypeError, TikOperandRangeError, TikScopeError,
                               TikSyntaxError, TikTensorOverflowError)
from npusim.sim.dtypes import itemsize
from te_compat.tik.checks import immediate, operand

#: TIK's short dtype names (tik_api_constants.DTYPE_MAP)
SHORT = {"float16": "f16", "float32": "f32", "int8": "s8", "uint8": "u8", "int16": "s16", "uint16": "u16",
         "int32": "s32", "uint32": "u32", "int64": "s64", "uint64": "u64"}
#: TIK's names of the simulator scopes in cube messages
SCOPE_NAMES = {"GM": "scope_gm", "UB": "scope_ubuf", "L1": "L1", "L0A": "L0A", "L0B": "L0B", "L0C": "L1_OUT"}


def combo(*dtypes) -> str:
    """TIK's name of a dtype combination ("f16f16f32")."""
    return "".join(SHORT.get(d, d) for d in dtypes)


def unsupported_combo(name: str, dtypes) -> TikDtypeError:
    return TikDtypeError(f"current chip not support {combo(*dtypes)} for Intrinsic {name}")


def tensor_operand(role: str, value, scopes: tuple, what: str, must: bool = False, message: str = ""):
    """The Operand of ``value`` (a Tensor or an element view) that must live in one of ``scopes``; ``what`` names
    the scope in the message ("L1", "L1_OUT" ...); ``must``: fixpipe's wording of it; ``message``: TIK's own."""
    if value is None or isinstance(value, (int, float, str)):
        raise TikSyntaxError(f"{role} should be Tensor, input type is {type(value).__name__}")
    op = operand(role, value)
    if op.tensor.scope not in scopes:
        scope = SCOPE_NAMES.get(op.tensor.scope, op.tensor.scope)
        raise TikScopeError(message or (f"{role}'s scope must be {what}, input scope is: {scope}" if must else
                                        f"{role}'s scope should be {what}, but {role}'s scope is {scope}"))
    return op


def python_int(name: str, value, low: int, high: int, matmul: bool = False) -> int:
    """An immediate Python int in [low, high] (matmul / fixpipe take no Exprs); ``matmul``: matmul's wording."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TikSyntaxError(f"{name} should be int, but {name}'s type is {type(value).__name__}" if matmul else
                             f"{name} should be python int, input type is {type(value).__name__}")
    if not low <= value <= high:
        raise TikOperandRangeError(f"{name} should be in range of [{low}, {high}], but {name} is {value}" if matmul
                                   else f"{name} should be in range of [{low}, {high}], input value is {value}")
    return value


def elements_left(op) -> int | None:
    """Elements of the operand's tensor from its start to the end (None when the start is an Expr)."""
    offset = immediate(op.offset)
    return None if offset is None else op.tensor.size - offset


def check_need(role: str, op, need: int) -> None:
    """TIK's cube overflow check: the operand must hold ``need`` elements from its start."""
    have = elements_left(op)
    if have is not None and have < need:
        raise TikTensorOverflowError(f"{role} tensor overflow, expected elements: {need}, actual elements: {have}")


def check_byte_alignment(op, align: int, text: str) -> None:
    """A constant start must be ``align``-byte aligned (``text``: TIK's message)."""
    offset = immediate(op.offset)
    if offset is not None and (offset * itemsize(op.dtype)) % align:
        raise TikAlignmentError(text)


__all__ = ["SHORT", "check_byte_alignment", "check_need", "combo", "elements_left", "python_int", "tensor_operand",
           "unsupported_combo"]
