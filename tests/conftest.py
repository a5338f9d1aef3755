"""Shared fixtures: the compatibility layer is switched on for every test (tests import `mindspore`)."""
import os

import pytest

import npusim.compat  # noqa: F401  (serves `mindspore` from npusim)

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED_SEED = os.path.join(os.path.dirname(REPO), "shared", "examples", "seed")


@pytest.fixture(autouse=True)
def _fresh_context():
    """Each test starts on the CPU target in PyNative mode, and on npusim's default target (what NPUSIM_SOC /
    NPUSIM_SAT_MODE give: set_chip, set_overflow_mode and TBE's te_set_version are undone after every test)."""
    from npusim.frontend import context
    from npusim.sim.runtime import reset_defaults
    saved = dict(context._context.values)
    reset_defaults()
    yield
    reset_defaults()
    context._context.values.clear()
    context._context.values.update(saved)


@pytest.fixture
def seed_dir():
    if not os.path.isdir(SHARED_SEED):
        pytest.skip("../shared/examples/seed is not present in this checkout")
    return SHARED_SEED


@pytest.fixture
def isolated_kernel_env(tmp_path, monkeypatch):
    """A test of its own: its own working directory (kernel_meta lands there) and kernel cache, the default chip,
    no in-memory built kernels; yields the working directory."""
    from npusim.custom.backends.tbe import clear_memory_cache
    from npusim.sim import set_chip
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    monkeypatch.setenv("NPUSIM_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("NPUSIM_KERNEL_META", raising=False)
    monkeypatch.delenv("NPUSIM_SOC", raising=False)
    set_chip(None)
    clear_memory_cache()
    yield work
    set_chip(None)
    clear_memory_cache()
