"""``te.utils``: ``op_utils``, ``para_check``, ``shape_util``, ``error_manager`` and ``cce`` (auto_schedule)."""
from te_compat.te.utils import cce, error_manager, op_utils, para_check, shape_util  # noqa: F401

__all__ = ["cce", "error_manager", "op_utils", "para_check", "shape_util"]
