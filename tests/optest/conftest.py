"""Fixtures of the op test tests: the example op project's ``impl`` package must not leak into other tests."""
import sys

import pytest


@pytest.fixture(autouse=True, scope="module")
def _restore_impl_modules():
    """Put back whatever ``impl*`` modules were loaded before the test module (an op test imports the project's own
    ``impl``; module scope, so it also covers module-scoped fixtures that run cases)."""
    saved = {name: module for name, module in sys.modules.items() if name == "impl" or name.startswith("impl.")}
    yield
    for name in [n for n in sys.modules if n == "impl" or n.startswith("impl.")]:
        del sys.modules[name]
    sys.modules.update(saved)
