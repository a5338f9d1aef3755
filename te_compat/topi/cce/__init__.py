"""``topi.cce``: the ``util`` checks module."""
from te_compat.topi.cce import util  # noqa: F401

__all__ = ["util"]
