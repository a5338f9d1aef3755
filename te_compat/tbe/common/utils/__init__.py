"""``tbe.common.utils``: ``para_check``, ``shape_util`` and ``errormgr``."""
from te_compat.tbe.common.utils import errormgr, para_check, shape_util  # noqa: F401

__all__ = ["errormgr", "para_check", "shape_util"]
