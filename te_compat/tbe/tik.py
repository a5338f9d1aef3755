"""``tbe.tik``: TIK, served from :mod:`te_compat.tik` (``from tbe import tik``; ``tik.Tik()`` ...)."""
from te_compat.tik import *  # noqa: F401,F403
from te_compat.tik import __all__  # noqa: F401
