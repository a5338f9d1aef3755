"""``tbe.dsl.classify``: both the function (``tbe.dsl.classify(ins, mode)``) and the module
(``from tbe.dsl.classify import OpPatternMode``).  Importing a submodule rebinds the parent's attribute to the
module, so the module itself is made callable: calling it runs :func:`te_compat.surface.classify.classify`."""
import sys
import types

from te_compat.surface.classify import OpImplMode, OpPatternMode, variable_shape  # noqa: F401
from te_compat.surface.classify import classify as _classify


def classify(ins, mode, extra_params=None):
    """The input combinations to build for ``mode`` (see :mod:`te_compat.surface.classify`)."""
    return _classify(ins, mode, extra_params)


class _CallableModule(types.ModuleType):
    def __call__(self, ins, mode, extra_params=None):
        return _classify(ins, mode, extra_params)


sys.modules[__name__].__class__ = _CallableModule

__all__ = ["OpImplMode", "OpPatternMode", "classify", "variable_shape"]
