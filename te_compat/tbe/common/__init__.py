"""``tbe.common``: ``utils`` (para_check, shape_util, errormgr), ``register``, ``platform``, ``context``,
``buildcfg``."""
from te_compat.tbe.common import buildcfg, context, platform, register, utils  # noqa: F401

__all__ = ["buildcfg", "context", "platform", "register", "utils"]
