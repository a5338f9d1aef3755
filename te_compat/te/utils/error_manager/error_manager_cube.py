"""``te.utils.error_manager.error_manager_cube``: CANN's error raisers and
``get_error_message`` (every ``raise_err_*`` name raises TbeArgumentError naming the op and the cause;
see :mod:`te_compat.surface.errormgr`)."""
from te_compat.surface.errormgr import *  # noqa: F401,F403
from te_compat.surface.errormgr import __getattr__, get_error_message, raise_runtime_error, \
    raise_runtime_error_cube  # noqa: F401
