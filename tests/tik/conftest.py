"""Every TIK test runs in its own working directory (kernel_meta lands there) with its own kernel cache."""
import pytest


@pytest.fixture(autouse=True)
def _isolated_tik_env(tmp_path, monkeypatch):
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


@pytest.fixture(params=["Ascend910", "Ascend310"])
def soc(request):
    """Each test using it runs on both SoCs real TIK kernels are written for (set as a TIK kernel sets it)."""
    from tbe.common.platform import set_current_compile_soc_info
    assert set_current_compile_soc_info(request.param) == "success"
    return request.param
