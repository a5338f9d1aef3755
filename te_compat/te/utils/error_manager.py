"""``te.utils.error_manager``: ``error_manager_vector`` / ``error_manager_util`` raisers (see
:mod:`te_compat.surface.errormgr`)."""
from te_compat.surface import errormgr as error_manager_vector  # noqa: F401
from te_compat.surface import errormgr as error_manager_util  # noqa: F401
from te_compat.surface.errormgr import get_error_message, raise_runtime_error  # noqa: F401

__all__ = ["error_manager_util", "error_manager_vector", "get_error_message", "raise_runtime_error"]
