"""The seed example test_dropout_aicpu.py, unmodified: as a script under `npusim run`, and its Cell in-process."""
import re
import runpy
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

SEED = Path(__file__).resolve().parents[3] / "shared" / "examples" / "seed" / "test_dropout_aicpu.py"
pytestmark = pytest.mark.skipif(not SEED.is_file(), reason="the shared seed examples are not present")


def test_seed_script_runs_under_npusim_run():
    proc = subprocess.run([sys.executable, "-m", "npusim", "run", str(SEED)], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    output_text, mask_text = proc.stdout.split("mask:")
    values = {float(v) for v in re.findall(r"-?\d+\.?\d*", output_text)}
    masks = re.findall(r"True|False", mask_text)
    assert values in ({0.0}, {2.0}), "one (N, C) channel: all dropped or all kept and scaled by 1/keep_prob"
    assert len(masks) == 6 and set(masks) == ({"True"} if values == {2.0} else {"False"})


def test_seed_cell_semantics_in_process():
    import npusim.compat  # noqa: F401  (makes `mindspore` importable)
    from mindspore import Tensor
    from mindspore import dtype as mstype

    seed = runpy.run_path(str(SEED), run_name="seed_dropout_aicpu")
    net = seed["NetDropout2D"](0.5)
    x = np.arange(1, 2 * 16 * 2 * 3 + 1, dtype=np.float32).reshape(2, 16, 2, 3)
    output, mask = net(Tensor(x, mstype.float32))
    y, m = output.asnumpy(), mask.asnumpy()
    assert m.dtype == np.bool_ and y.shape == m.shape == x.shape
    channels = m.reshape(32, -1)
    assert (channels.all(axis=1) | ~channels.any(axis=1)).all()
    np.testing.assert_array_equal(y[m], x[m] * 2)
    assert (y[~m] == 0).all() and 0 < channels.all(axis=1).sum() < 32
