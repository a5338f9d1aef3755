"""``te``: the 2019-2020 TBE package (``te.lang.cce``, ``te.tvm``, ``te.platform``, ``te.utils``), served by npusim's
compatibility layer from ``te_compat.te``.  Importing it installs :mod:`te_compat.pycompat`."""
from te_compat import pycompat as _pycompat

_pycompat.install()

from te_compat.te import lang, platform, tvm, utils  # noqa: E402,F401

__all__ = ["lang", "platform", "tvm", "utils"]
