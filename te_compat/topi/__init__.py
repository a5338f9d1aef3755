"""``topi``: CANN's 2019-2020 ``topi`` package as op files use it (``topi.generic.auto_schedule``,
``topi.cce.util``), served by npusim's compatibility layer.  Importing it installs :mod:`te_compat.pycompat`."""
from te_compat import pycompat as _pycompat

_pycompat.install()

from te_compat.topi import cce, generic  # noqa: E402,F401

__all__ = ["cce", "generic"]
