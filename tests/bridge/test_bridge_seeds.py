"""The seed TBE and AICPU scripts, unmodified, under `npusim run --mindspore real` (real MindSpore 2.10 CPU)."""
import re
import shutil

import pytest

from bridge_env import failure, mindspore_python, run_npusim

NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?")


@pytest.fixture
def seed_copy(seed_dir, tmp_path):
    work = tmp_path / "seed"
    shutil.copytree(seed_dir, work)
    return work


def test_seed_tbe_add_prints_the_documented_sum(seed_copy):
    proc = run_npusim(mindspore_python(), ["run", "--mindspore", "real", "test_custom_tbe.py"], seed_copy)
    assert proc.returncode == 0, failure(proc)
    assert [float(x) for x in NUMBER.findall(proc.stdout)] == [2.0, 2.0, 4.0, 4.0], failure(proc)


def test_seed_dropout_aicpu_in_graph_mode_keeps_or_drops_whole_channels(seed_copy):
    """GRAPH mode with a str attribute (cust_aicpu): the bridge interns it through its Cell wrapper."""
    proc = run_npusim(mindspore_python(), ["run", "--mindspore", "real", "test_dropout_aicpu.py"], seed_copy)
    assert proc.returncode == 0, failure(proc)
    out_text, _, mask_text = proc.stdout.partition("mask")
    values = [float(x) for x in NUMBER.findall(out_text)]
    mask = re.findall(r"True|False", mask_text)
    assert len(values) == 6 and len(mask) == 6, failure(proc)
    assert len(set(values)) == 1 and values[0] in (0.0, 2.0), values
    assert all((v == 2.0) == (m == "True") for v, m in zip(values, mask)), (values, mask)
