"""Fixtures of the import-resolution tests: alias names in sys.modules, sys.path and the layer restored afterwards."""
import importlib
import sys

import pytest

from npusim.compat import aliases


def _alias_entries() -> dict:
    return {name: module for name, module in sys.modules.items() if name.partition(".")[0] in aliases.ALIASES}


@pytest.fixture
def alias_names(monkeypatch):
    """Lets a test drop and re-import ``mindspore`` / ``te`` / ``tbe`` / ``topi`` / ``impl`` modules: afterwards the
    entries of those names in sys.modules are exactly what they were, sys.path too, and the layer is on."""
    saved = _alias_entries()
    monkeypatch.setattr(sys, "path", list(sys.path))

    def drop(*tops):
        for name in [n for n in sys.modules if n.partition(".")[0] in tops]:
            del sys.modules[name]
        importlib.invalidate_caches()
    yield drop
    aliases.install()
    for name in set(_alias_entries()) - set(saved):
        del sys.modules[name]
    sys.modules.update(saved)
    importlib.invalidate_caches()
