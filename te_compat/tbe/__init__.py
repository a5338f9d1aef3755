"""``tbe``: the 2021-2022 TBE package (``tbe.dsl``, ``tbe.tvm``, ``tbe.common``), served by npusim's compatibility
layer from ``te_compat.tbe`` where the user's ``sys.path`` holds no ``tbe``.  ``tbe.compute()`` and ``tbe.var`` are
the dynamic-shape helpers (also on ``tbe.dsl``)."""
from te_compat.surface.context import compute, var  # noqa: F401
from te_compat.tbe import common, dsl, tvm  # noqa: F401

__all__ = ["common", "compute", "dsl", "tvm", "var"]
