"""MindSpore's operator-information library: ``op_info_register`` and what it records.

``@op_info_register(info)`` (TBERegOp, AiCPURegOp, AkgAscendRegOp ... or their dict / JSON form) records the
implementation of an operator under the op's name, as MindSpore's Oplib does.  A ``PrimitiveWithInfer`` subclass
whose name is that op name then runs the implementation when called (see :mod:`npusim.custom.primitive_kernel`).
The decorated function also carries the info as ``reg_info``, so ``ops.Custom(func, ...)`` finds it as well.
"""
from __future__ import annotations

import functools
import inspect
from dataclasses import dataclass
from typing import Callable, Optional

from npusim.custom.reg_info import normalise_reg_info
from npusim.errors import OpTypeError, OpValueError

#: MindSpore's ``imply_type`` → the Custom func_type that runs such an implementation
FUNC_TYPE_OF_IMPLY_TYPE = {"TBE": "tbe", "AiCPU": "aicpu", "AKG": "akg"}


@dataclass(frozen=True)
class RegisteredOp:
    """One registered implementation: the op info, the decorated function and the file it lives in."""

    op_name: str
    info: dict
    func: Callable
    impl_path: str

    @property
    def imply_type(self) -> str:
        return str(self.info.get("imply_type") or "")

    @property
    def func_type(self) -> Optional[str]:
        """The Custom func_type that runs this implementation, or None when npusim has none for it."""
        return FUNC_TYPE_OF_IMPLY_TYPE.get(self.imply_type)


_REGISTRY: dict[tuple[str, str], RegisteredOp] = {}  # (op name, imply type) → latest registration


def _imply_type(info: dict) -> str:
    explicit = info.get("imply_type")
    if isinstance(explicit, str) and explicit:
        return explicit
    return "TBE" if "kernel_name" in info or "binfile_name" in info else ""


def register(info: dict, func: Callable, impl_path: str) -> RegisteredOp:
    """Record ``func`` as the implementation of ``info["op_name"]`` (a later registration replaces an earlier)."""
    name = info.get("op_name")
    if not isinstance(name, str) or not name:
        raise OpValueError(f"op_info_register: the op info has no op name: {info!r}")
    entry = RegisteredOp(name, info, func, impl_path)
    _REGISTRY[(name, entry.imply_type)] = entry
    return entry


def find(op_name: str, imply_type: Optional[str] = None) -> Optional[RegisteredOp]:
    """The registration of ``op_name`` (of ``imply_type`` if given; TBE first, then AiCPU, then AKG)."""
    if imply_type is not None:
        return _REGISTRY.get((op_name, imply_type))
    for kind in ("TBE", "AiCPU", "AKG"):
        if (op_name, kind) in _REGISTRY:
            return _REGISTRY[(op_name, kind)]
    return next((e for (name, _), e in _REGISTRY.items() if name == op_name), None)


def op_info_register(op_info):
    """Decorator: register the decorated function as the implementation described by ``op_info``."""
    infos = normalise_reg_info(op_info)
    if len(infos) != 1:
        raise OpTypeError(f"op_info_register: expected one op info (a RegOp, dict or JSON string), got {op_info!r}")
    info = dict(infos[0])
    info["imply_type"] = _imply_type(info)

    def decorator(func):
        if not callable(func):
            raise OpTypeError(f"op_info_register: the decorated object must be a function, got {func!r}")
        try:
            impl_path = inspect.getsourcefile(func) or ""
        except TypeError:
            impl_path = ""

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            return func(*args, **kwargs)

        wrapper.reg_info = [info]
        register(info, wrapper, impl_path)
        return wrapper
    return decorator
