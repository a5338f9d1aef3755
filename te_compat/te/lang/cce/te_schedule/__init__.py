"""``te.lang.cce.te_schedule``: ``cce_build_code`` and ``auto_schedule`` (as ``schedule_cce``)."""
from te_compat.surface.lazy import auto_schedule, cce_build_code  # noqa: F401
from te_compat.te.lang.cce.te_schedule import cce_schedule  # noqa: F401

schedule_cce = auto_schedule

__all__ = ["auto_schedule", "cce_build_code", "cce_schedule", "schedule_cce"]
