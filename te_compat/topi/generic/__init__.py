"""``topi.generic``: ``auto_schedule(outs)`` (npusim's DSL scheduler)."""
from te_compat.surface.lazy import auto_schedule  # noqa: F401

__all__ = ["auto_schedule"]
