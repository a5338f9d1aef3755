"""``te.utils.error_manager`` (a package, as in CANN): ``error_manager_vector``, ``error_manager_util``,
``error_manager_cube`` and ``error_manager_conv2d`` raisers (see :mod:`te_compat.surface.errormgr`), importable as
attributes (``from te.utils.error_manager import error_manager_vector``) and as submodules
(``from te.utils.error_manager.error_manager_util import get_error_message``)."""
from te_compat.surface.errormgr import get_error_message, raise_runtime_error  # noqa: F401
from te_compat.te.utils.error_manager import (  # noqa: F401
    error_manager_conv2d, error_manager_cube, error_manager_util, error_manager_vector)

__all__ = ["error_manager_conv2d", "error_manager_cube", "error_manager_util", "error_manager_vector",
           "get_error_message", "raise_runtime_error"]
