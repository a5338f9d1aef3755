"""``tbe.common.register``: register_operator, register_op_compute, register_param_generalization (see
:mod:`te_compat.surface.register`)."""
from te_compat.surface.register import *  # noqa: F401,F403
from te_compat.surface.register import __all__  # noqa: F401
