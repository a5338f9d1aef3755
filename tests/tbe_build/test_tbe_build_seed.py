"""The seed test_custom_tbe.py, unmodified, through `npusim run` (and its F16 variant).

Skipped until the TBE import surface (`te`, served by the compat layer) and the scheduler (`te_compat.schedule`)
exist, and when ../shared is not checked out.
"""
import importlib.util
import os
import re
import shutil
import subprocess
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
NUM = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?")
SEED = "test_custom_tbe.py"


def _importable(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


pytestmark = pytest.mark.skipif(not (_importable("te") and _importable("te_compat.schedule")),
                                reason="needs `te` (compat layer) and te_compat.schedule")


def _run(work, cache, name):
    env = dict(os.environ, PYTHONPATH=REPO + os.pathsep + os.environ.get("PYTHONPATH", ""),
               NPUSIM_CACHE_DIR=str(cache))
    env.pop("NPUSIM_KERNEL_META", None)
    return subprocess.run([sys.executable, "-m", "npusim", "run", name], cwd=work, capture_output=True, text=True,
                          env=env, timeout=300)


@pytest.mark.parametrize("variant", ["f32", "f16"])
def test_seed_custom_tbe_prints_the_documented_result(seed_dir, tmp_path, variant):
    work = tmp_path / "seed"
    work.mkdir()
    shutil.copy(os.path.join(seed_dir, SEED), work / SEED)
    if variant == "f16":  # the seed's F16 reg-info row: same script with float16 inputs
        text = (work / SEED).read_text()
        assert text.count("astype(np.float32)") == 2
        (work / SEED).write_text(text.replace("astype(np.float32)", "astype(np.float16)"))
    proc = _run(work, tmp_path / "cache", SEED)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert [float(x) for x in NUM.findall(proc.stdout)] == [2, 2, 4, 4], proc.stdout
    assert "[[2. 2.]\n [4. 4.]]" in proc.stdout
    assert not (work / "kernel_meta").exists()  # Custom builds into the cache, not the script's directory
    assert list((tmp_path / "cache" / "tbe").glob("*/kernel_meta/add_*.json"))
