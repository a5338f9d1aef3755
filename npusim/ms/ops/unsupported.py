"""Module ``__getattr__`` for MindSpore modules npusim provides in part: a name it lacks raises UnsupportedError
saying what the module does provide (a dunder or private name raises AttributeError, so ``hasattr`` probes and the
import system behave as usual; a submodule that exists is imported)."""
from __future__ import annotations

import importlib
import importlib.util

from npusim.errors import UnsupportedError

#: npusim's package that serves ``mindspore``
REAL_ROOT, ALIAS_ROOT = "npusim.ms", "mindspore"


def mindspore_name(module_name: str) -> str:
    """``npusim.ms.ops.x`` → ``mindspore.ops.x`` (other names unchanged)."""
    if module_name == REAL_ROOT or module_name.startswith(REAL_ROOT + "."):
        return ALIAS_ROOT + module_name[len(REAL_ROOT):]
    return module_name


def missing_attribute(module_name: str, provides: str):
    """A ``__getattr__`` for module ``module_name`` that lists ``provides`` when a public name is missing."""
    def __getattr__(name: str):
        if name.startswith("__"):
            raise AttributeError(f"module {mindspore_name(module_name)!r} has no attribute {name!r}")
        if _is_package(module_name) and importlib.util.find_spec(f"{module_name}.{name}") is not None:
            return importlib.import_module(f"{module_name}.{name}")
        if name.startswith("_"):
            raise AttributeError(f"module {mindspore_name(module_name)!r} has no attribute {name!r}")
        raise UnsupportedError(f"'{mindspore_name(module_name)}.{name}' is not provided by npusim; this module "
                               f"offers {provides}")
    return __getattr__


def _is_package(module_name: str) -> bool:
    spec = importlib.util.find_spec(module_name)
    return spec is not None and spec.submodule_search_locations is not None
