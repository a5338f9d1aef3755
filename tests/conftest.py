"""Shared fixtures: the compatibility layer is switched on for every test (tests import `mindspore`)."""
import os

import pytest

import npusim.compat  # noqa: F401  (serves `mindspore` from npusim)

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED_SEED = os.path.join(os.path.dirname(REPO), "shared", "examples", "seed")


@pytest.fixture(autouse=True)
def _fresh_context():
    """Each test starts on the CPU target in PyNative mode."""
    from npusim.frontend import context
    saved = dict(context._context.values)
    yield
    context._context.values.clear()
    context._context.values.update(saved)


@pytest.fixture
def seed_dir():
    if not os.path.isdir(SHARED_SEED):
        pytest.skip("../shared/examples/seed is not present in this checkout")
    return SHARED_SEED
