"""The operator tests build into a private kernel cache and working directory (a kernel cached by an earlier run
must not hide a build problem), on the default chip."""
import pytest


@pytest.fixture(autouse=True)
def _isolated_build_env(tmp_path, monkeypatch):
    from npusim.custom.backends.tbe import clear_memory_cache
    from npusim.sim import set_chip
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("NPUSIM_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("NPUSIM_KERNEL_META", raising=False)
    monkeypatch.delenv("NPUSIM_SOC", raising=False)
    set_chip(None)
    clear_memory_cache()
    yield
    set_chip(None)
    clear_memory_cache()

