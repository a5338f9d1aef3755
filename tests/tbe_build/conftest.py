"""Every te_compat.build test runs in its own working directory with its own kernel cache, on the default chip."""
import pytest


@pytest.fixture(autouse=True)
def _isolated_build_env(tmp_path, monkeypatch):
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
