"""Fixtures of the aot tests: a private compile cache and building kernels the way users do."""
import subprocess
from pathlib import Path

import pytest

from npusim.aot import INCLUDE_DIR

KERNEL_DIR = Path(__file__).resolve().parent / "kernels"


@pytest.fixture(scope="session", autouse=True)
def aot_cache_dir(tmp_path_factory):
    """Every test compiles into one throw-away cache (NPUSIM_CACHE_DIR), never the user's."""
    root = tmp_path_factory.mktemp("npusim_cache")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("NPUSIM_CACHE_DIR", str(root))
        yield root / "aot"


@pytest.fixture(scope="session")
def build_so(tmp_path_factory):
    """build_so(source_name, *flags) → path of a .so compiled by the test itself with g++."""
    out_dir = tmp_path_factory.mktemp("prebuilt")
    built = {}

    def build(source_name, *flags):
        key = (source_name, flags)
        if key not in built:
            target = out_dir / f"{Path(source_name).stem}-{len(built)}.so"
            command = ["g++", "-std=c++17", "--shared", "-fPIC", "-O2", f"-I{INCLUDE_DIR}", f"-I{KERNEL_DIR}",
                       *flags, "-o", str(target), str(KERNEL_DIR / source_name)]
            subprocess.run(command, check=True, capture_output=True, text=True)
            built[key] = target
        return built[key]

    return build


@pytest.fixture
def in_kernel_dir(monkeypatch):
    """Run the test with the kernel sources' directory as the working directory."""
    monkeypatch.chdir(KERNEL_DIR)
    return KERNEL_DIR
