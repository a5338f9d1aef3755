"""``tbe.common.context.op_info``: ``OpInfo``."""
from te_compat.surface.context import OpInfo  # noqa: F401

__all__ = ["OpInfo"]
