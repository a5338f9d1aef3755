"""The name set of ``shape_util``: :mod:`te_compat.surface.shapes` plus ``variable_shape`` and
``compare_tensor_dict_key``."""
from te_compat.surface.checks import is_scalar  # noqa: F401
from te_compat.surface.classify import variable_shape  # noqa: F401
from te_compat.surface.legacy_util import compare_tensor_dict_key  # noqa: F401
from te_compat.surface.shapes import *  # noqa: F401,F403
from te_compat.surface.shapes import __all__ as _shape_names

__all__ = [*_shape_names, "compare_tensor_dict_key", "is_scalar", "variable_shape"]
