"""Fixtures of the hybrid tests: compiled kernels go to one throw-away disk cache, never the user's."""
import pytest


@pytest.fixture(scope="session", autouse=True)
def hybrid_cache_dir(tmp_path_factory):
    """The session's NPUSIM_CACHE_DIR; hybrid kernels are kept in its ``hybrid`` directory."""
    root = tmp_path_factory.mktemp("npusim_hybrid_cache")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("NPUSIM_CACHE_DIR", str(root))
        yield root / "hybrid"
