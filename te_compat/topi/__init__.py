"""``topi``: CANN's 2019-2020 ``topi`` package as op files use it (``topi.generic.auto_schedule``,
``topi.cce.util``), served by npusim's compatibility layer where the user's ``sys.path`` holds no ``topi``."""
from te_compat.topi import cce, generic  # noqa: F401

__all__ = ["cce", "generic"]
