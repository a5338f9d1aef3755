"""`npusim optest --ray`: the cases as Ray tasks on a local Ray instance give the same report as a sequential run;
without Ray the option is a one-line usage error (the other tests skip)."""
import importlib.util
import json

import pytest

from npusim.cli import main
from optest_support import EXAMPLES

HAVE_RAY = importlib.util.find_spec("ray") is not None
CASES = ["Test_ScaledAdd_002", "Test_ScaledAdd_003", "Test_ScaleShift_001"]


def _case_args() -> list:
    return [arg for name in CASES for arg in ("--case", name)]


@pytest.mark.skipif(HAVE_RAY, reason="Ray is installed: the missing-Ray message cannot be seen")
def test_without_ray_the_option_says_how_to_install_it(capsys):
    assert main(["optest", str(EXAMPLES / "cases.json"), "--ray", "auto"]) == 2
    err = capsys.readouterr().err
    assert "pip install 'npusim[ray]'" in err and err.count("\n") == 1


@pytest.mark.skipif(not HAVE_RAY, reason="Ray is not installed (pip install 'npusim[ray]')")
def test_a_local_ray_run_gives_the_same_report(tmp_path, capsys):
    sequential, on_ray = tmp_path / "seq.json", tmp_path / "ray.json"
    common = [str(EXAMPLES / "cases.json"), "--soc", "Ascend910,Ascend310P3", *_case_args()]
    assert main(["optest", *common, "--report", str(sequential)]) == 0
    assert main(["optest", *common, "--ray", "auto", "--report", str(on_ray)]) == 0
    capsys.readouterr()
    first, second = json.loads(sequential.read_text()), json.loads(on_ray.read_text())
    assert first["summary"] == second["summary"] and first["cases"] == second["cases"]
    assert first["summary"]["cases"] == 2 * 9
