"""``tbe.common.context`` (``tbe_context``): ``op_context`` (``OpContext``, ``get_context``), ``op_info``."""
from te_compat.surface.context import OpContext, get_context  # noqa: F401
from te_compat.tbe.common.context import op_context, op_info  # noqa: F401

__all__ = ["OpContext", "get_context", "op_context", "op_info"]
