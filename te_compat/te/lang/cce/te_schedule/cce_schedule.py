"""``te.lang.cce.te_schedule.cce_schedule``: ``cce_build_code`` and ``schedule_cce``."""
from te_compat.surface.lazy import auto_schedule, cce_build_code  # noqa: F401

schedule_cce = auto_schedule

__all__ = ["auto_schedule", "cce_build_code", "schedule_cce"]
