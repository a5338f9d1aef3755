"""``te.lang``: the DSL namespace (``te.lang.cce``)."""
from te_compat.te.lang import cce  # noqa: F401

__all__ = ["cce"]
