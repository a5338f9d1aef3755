"""``te.platform.cce_policy``: CANN's L1/L2 fusion switches, as op files import them.

``get_L1_info(key)`` answers CANN's defaults (``op_L1_space`` -1, ``op_L1_fusion_type`` -1, ``L1_fusion_enabled`` /
``L2_fusion_enabled`` False: npusim builds single ops, no L1 fusion); ``set_L1_info(key, value)`` records a value for
the current context (a ContextVar, so threads and contexts do not see each other's settings) and refuses an unknown
key, as CANN does.  ``enableL2`` / ``disableL2`` are no-ops (no L2 fusion in codegen); ``OpImplPolicy`` gives the
impl_mode keyword CANN's compiler passes (none unless ``op_impl_mode`` is set).
"""
from __future__ import annotations

import contextvars
import inspect

from npusim.errors import TbeArgumentError

_DEFAULTS = (("op_L1_space", -1), ("op_L1_fusion_type", -1), ("L1_fusion_enabled", False),
             ("L2_fusion_enabled", False))
_l1_info: contextvars.ContextVar = contextvars.ContextVar("npusim_cce_policy_l1_info", default=())


def get_L1_info(key):  # noqa: N802 (CANN's name)
    """The L1 fusion setting ``key`` (CANN's defaults unless :func:`set_L1_info` set it in this context)."""
    values = dict(_DEFAULTS)
    values.update(_l1_info.get())
    if key not in values:
        raise TbeArgumentError(f"key[{key}] not support.")
    return values[key]


def set_L1_info(key, value) -> bool:  # noqa: N802
    """Record the L1 fusion setting ``key`` for the current context; an unknown key raises, as in CANN."""
    if key not in dict(_DEFAULTS):
        raise TbeArgumentError(f"key[{key}] not support.")
    _l1_info.set(tuple({**dict(_l1_info.get()), key: value}.items()))
    return True


def enableL2():  # noqa: N802
    """Enable L2 fusion in codegen: nothing to do in npusim (no L2 fusion)."""
    return True


def disableL2():  # noqa: N802
    """Disable L2 fusion in codegen: nothing to do in npusim."""
    return True


class OpImplPolicy:
    """CANN's op implementation policy: the ``impl_mode`` keyword for an op function (none by default)."""

    op_impl_mode = None
    op_impl_mode_list = ()

    @classmethod
    def get_op_impl_mode(cls, opfunc, op_type) -> dict:
        if cls.op_impl_mode in ("", None):
            return {}
        param = inspect.signature(opfunc).parameters.get("impl_mode")
        if param is not None and param.kind in (param.KEYWORD_ONLY, param.POSITIONAL_OR_KEYWORD) and (
                not cls.op_impl_mode_list or op_type in cls.op_impl_mode_list):
            return {"impl_mode": cls.op_impl_mode}
        return {}


__all__ = ["OpImplPolicy", "disableL2", "enableL2", "get_L1_info", "set_L1_info"]
