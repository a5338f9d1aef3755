"""``tbe.common.context.op_context``: ``OpContext`` and ``get_context`` (see :mod:`te_compat.surface.context`)."""
from te_compat.surface.context import OpContext, get_context  # noqa: F401

__all__ = ["OpContext", "get_context"]
