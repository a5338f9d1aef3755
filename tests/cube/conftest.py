"""The cube tests build into a private kernel cache and working directory, on the chip each test selects."""
import pytest


@pytest.fixture(autouse=True)
def _isolated_cube_env(tmp_path, monkeypatch):
    from mindspore import context
    from npusim.custom.backends.tbe import clear_memory_cache
    from npusim.sim import set_chip
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("NPUSIM_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("NPUSIM_KERNEL_META", raising=False)
    monkeypatch.delenv("NPUSIM_SOC", raising=False)
    context.set_context(device_target="Ascend")
    set_chip(None)
    clear_memory_cache()
    yield
    set_chip(None)
    clear_memory_cache()
