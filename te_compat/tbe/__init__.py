"""``tbe``: the 2021-2022 TBE package (``tbe.dsl``, ``tbe.tvm``, ``tbe.common``), served by npusim's compatibility
layer from ``te_compat.tbe``.  ``tbe.compute()`` and ``tbe.var`` are the dynamic-shape helpers (also on
``tbe.dsl``).  Importing it installs :mod:`te_compat.pycompat`."""
from te_compat import pycompat as _pycompat

_pycompat.install()

from te_compat.surface.context import compute, var  # noqa: E402,F401
from te_compat.tbe import common, dsl, tvm  # noqa: E402,F401

__all__ = ["common", "compute", "dsl", "tvm", "var"]
