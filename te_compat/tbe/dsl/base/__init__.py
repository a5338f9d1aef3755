"""``tbe.dsl.base``: the ``operation`` module (op/compute contexts)."""
from te_compat.tbe.dsl.base import operation  # noqa: F401

__all__ = ["operation"]
