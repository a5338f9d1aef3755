"""``te.utils.cce``: ``auto_schedule`` and ``cce_build_code``."""
from te_compat.surface.lazy import auto_schedule, cce_build_code  # noqa: F401

__all__ = ["auto_schedule", "cce_build_code"]
