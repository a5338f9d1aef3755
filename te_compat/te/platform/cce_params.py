"""``te.platform.cce_params``: scope names and vector/cube constants (see :mod:`te_compat.surface.params`)."""
from te_compat.surface.params import *  # noqa: F401,F403
from te_compat.surface.params import __all__  # noqa: F401
