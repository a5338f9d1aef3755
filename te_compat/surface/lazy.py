"""The DSL functions and the schedule/build entry points, resolved when first used.

``te.lang.cce``, ``tbe.dsl`` and their submodules re-export every name of ``te_compat.dsl.__all__`` as the surface
function of :mod:`te_compat.surface.dsl_functions` (surface tensors in and out, ``dtype`` a ``str``); they do so
through :func:`make_dsl_getattr` (a PEP 562 module ``__getattr__``), so importing ``te`` never imports the DSL,
the scheduler or the builder.  :func:`auto_schedule`, :func:`cce_build_code` and :func:`build` import their
implementation inside the call and unwrap their arguments (``config["tensor_list"]`` included).
"""
from __future__ import annotations

import importlib

from te_compat.objects import raw_tree


def dsl():
    """The module of the served DSL functions (:mod:`te_compat.surface.dsl_functions`)."""
    return importlib.import_module("te_compat.surface.dsl_functions")


def dsl_names() -> tuple:
    """Every DSL function name (``te_compat.dsl.__all__``)."""
    return tuple(dsl().__all__)


def make_dsl_getattr(module_globals: dict, extra_names=()):
    """A module ``__getattr__`` serving the DSL names (cached into the module once resolved) and ``__all__``
    (the DSL names plus ``extra_names``, the module's own public names)."""
    module_name = module_globals["__name__"]

    def __getattr__(name):
        if name == "__all__":
            return sorted(set(dsl_names()) | set(extra_names))
        if name.startswith("__"):
            raise AttributeError(f"module {module_name!r} has no attribute {name!r}")
        try:
            module = dsl()
        except ImportError as exc:
            raise AttributeError(f"{module_name}.{name} is a DSL function, but te_compat.dsl cannot be imported: "
                                 f"{exc}") from exc
        if name not in module.__all__:
            raise AttributeError(f"module {module_name!r} has no attribute {name!r}")
        value = getattr(module, name)
        module_globals[name] = value  # explicit cache: the next access is a plain module attribute
        return value

    return __getattr__


def make_dsl_dir(module_globals: dict):
    """A module ``__dir__`` listing the DSL names too (when the DSL imports)."""

    def __dir__():
        names = set(module_globals)
        try:
            names |= set(dsl_names())
        except ImportError:
            pass  # listing what is defined is still correct without the DSL
        return sorted(names)

    return __dir__


def auto_schedule(outs, option=None):
    """``te.lang.cce.auto_schedule`` / ``tbe.dsl.auto_schedule`` / ``topi.generic.auto_schedule``."""
    from te_compat.schedule import auto_schedule as schedule_impl
    return schedule_impl(raw_tree(outs), raw_tree(option))


def cce_build_code(sch, config_map=None):
    """``te.lang.cce.cce_build_code``: build ``sch`` into kernel_meta as ``config_map`` says."""
    from te_compat.build import cce_build_code as build_impl
    return build_impl(sch, {} if config_map is None else raw_tree(config_map))


def build(sch, config_map=None):
    """``tbe.dsl.build``: like :func:`cce_build_code`; ``sch`` may be a list of schedules (dynamic style)."""
    from te_compat.build import build as build_impl
    return build_impl(raw_tree(sch), {} if config_map is None else raw_tree(config_map))


__all__ = ["auto_schedule", "build", "cce_build_code", "dsl", "dsl_names", "make_dsl_dir", "make_dsl_getattr"]
