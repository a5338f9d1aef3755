"""The cases as pytest items: `pytest --npusim-optest CASES.json -n 2` (pytest-xdist) and the conftest helper, run in a
subprocess on a copy of the examples."""
import re
import subprocess
import sys

import pytest

from optest_support import copy_examples, subprocess_env

HELPER_TEST = '''
import pytest

from npusim.optest.pytest_items import check_case, optest_params


@pytest.mark.parametrize("case, soc", optest_params("optest/cases.json", socs=("Ascend310P3",),
                                                    names=["Test_ScaledAdd_002", "Test_ScaleShift_002"]))
def test_helper(case, soc):
    result = check_case(case, soc)
    assert result.status == "PASS" and result.soc == "Ascend310P3"
'''


def _counts(output: str) -> dict:
    line = output.strip().splitlines()[-1]
    return {kind: int(n) for n, kind in re.findall(r"(\d+) (passed|failed|error)", line)}


@pytest.fixture(scope="module")
def xdist_run(tmp_path_factory):
    pytest.importorskip("xdist")
    root = tmp_path_factory.mktemp("plugin")
    copy_examples(root / "optest")
    (root / "test_helper_cases.py").write_text(HELPER_TEST)
    argv = [sys.executable, "-m", "pytest", "-n", "2", "-p", "no:randomly", "-p", "no:cacheprovider", "-q",
            "--npusim-optest", "optest/cases.json", "--npusim-optest", "optest/wrong_golden_cases.json",
            "--npusim-optest-soc", "Ascend910", "optest/cases.json", "optest/wrong_golden_cases.json",
            "test_helper_cases.py"]
    done = subprocess.run(argv, cwd=root, capture_output=True, text=True, env=subprocess_env(), timeout=600)
    return done


def test_the_cases_pass_as_items_spread_over_two_workers(xdist_run):
    out = xdist_run.stdout
    assert "created: 2/2 workers" in out or "bringing up nodes" in out, out
    counts = _counts(out)
    assert counts.get("passed") == 25 + 5, out      # the 25 example cases (once: named twice) + 5 helper items


def test_a_wrong_golden_fails_its_items_with_the_metrics(xdist_run):
    out = xdist_run.stdout
    assert xdist_run.returncode == 1 and _counts(out).get("failed") == 2, out
    assert "Test_ScaledAdd_wrong_golden_sub_case_001[Ascend910]" in out
    assert "1024/1024 elements off" in out and "exceed max_atol" in out
