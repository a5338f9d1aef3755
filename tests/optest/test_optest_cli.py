"""`npusim optest`: the result table, the JSON / CSV report, exit statuses, failing goldens, missing implementations,
expected failures and the TIK hook."""
import contextlib
import csv
import io
import json

import pytest

from npusim.cli import main
from optest_support import EXAMPLES, scaled_add_case, tensor, write_cases

SOCS = "Ascend910,Ascend310P3"


@pytest.fixture(scope="module")
def example_run(tmp_path_factory):
    """The example case file on two chips, once for the module: (exit status, stdout, JSON report)."""
    report = tmp_path_factory.mktemp("optest") / "report.json"
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = main(["optest", str(EXAMPLES / "cases.json"), "--soc", SOCS, "--report", str(report)])
    return status, out.getvalue(), json.loads(report.read_text())


def test_the_example_cases_pass_on_two_chips_over_three_ops(example_run):
    status, out, report = example_run
    assert status == 0, out
    assert report["summary"]["cases"] == 2 * 25 and report["summary"]["not_as_expected"] == 0
    assert {r["soc"] for r in report["cases"]} == {"Ascend910", "Ascend310P3"}
    assert {r["kind"] for r in report["cases"]} == {"tbe", "aicpu", "tik"}
    npu = [r for r in report["cases"] if r["kind"] in ("tbe", "tik") and r["status"] == "PASS"]
    assert len(npu) == 2 * 14 and all(r["cycles"] > 0 and r["busiest_pipe"] for r in npu)
    assert all(r["outputs"] and r["outputs"][0]["passed"] for r in report["cases"] if r["status"] == "PASS")


def test_the_table_shows_shapes_verdicts_cycles_and_pipes(example_run):
    _, out, _ = example_run
    header = out.splitlines()[0].split()
    assert header == ["case", "op", "soc", "shapes/dtypes", "result", "error", "metrics", "cycles", "pipe"]
    row = next(line for line in out.splitlines() if line.startswith("Test_ScaledAdd_002 ") and "Ascend310P3" in line)
    assert "float32[1,1000],float32[1,1000]->float32[1,1000]" in row and " PASS " in row and "err 0%" in row
    aicpu = next(line for line in out.splitlines() if line.startswith("Test_ScaleShift_001_sub_case_011"))
    assert aicpu.rstrip().endswith("AICPU")
    assert "50 case runs: 48 PASS, 0 FAIL, 2 ERROR; 0 not as expected" in out


def test_an_expected_failure_counts_as_expected(example_run):
    _, out, report = example_run
    rejected = [r for r in report["cases"] if r["case"] == "Test_ScaledAdd_int32_rejected"]
    assert len(rejected) == 2 and all(r["status"] == "ERROR" and r["ok"] for r in rejected)
    assert "float16" in rejected[0]["message"] and "ERROR (expected fail)" in out


def test_a_wrong_golden_fails_with_its_metrics(tmp_path, capsys):
    report = tmp_path / "wrong.csv"
    status = main(["optest", str(EXAMPLES / "wrong_golden_cases.json"), "--report", str(report)])
    out = capsys.readouterr().out
    assert status == 1
    assert "2 case runs: 0 PASS, 2 FAIL, 0 ERROR; 2 not as expected" in out
    assert "err 100% max_rel 0.33" in out and "1024/1024 elements off" in out and "exceed max_atol 0.1" in out
    rows = list(csv.DictReader(report.open()))
    assert [r["status"] for r in rows] == ["FAIL", "FAIL"] and float(rows[0]["error_ratio"]) == 1.0
    assert float(rows[0]["max_rel_error"]) > 0.3 and rows[0]["criterion"].startswith("percent atol=0.001")


def test_a_loose_command_line_criterion_overrides_the_case(tmp_path, capsys):
    raw = scaled_add_case("Loose", calc_expect_func_file=f"{EXAMPLES / 'golden.py'}:calc_scaled_add_wrong", alpha=0.99)
    for desc in raw["input_desc"]:
        desc["value_range"] = [0.5, 1.0]      # x1 * 0.99 + x2 vs x1 + x2: at most 0.5 % apart
    cases = write_cases(tmp_path / "c.json", [raw])
    assert main(["optest", str(cases), "--impl-dir", str(EXAMPLES)]) == 1
    capsys.readouterr()
    assert main(["optest", str(cases), "--impl-dir", str(EXAMPLES), "--tolerance", "all:0.05,0.01,0.1"]) == 0
    assert "PASS" in capsys.readouterr().out


def test_an_op_without_implementation_is_an_error_listing_where_it_looked(tmp_path, capsys):
    raw = {"case_name": "Nowhere", "op": "NoSuchOp", "input_desc": [tensor("x")], "output_desc": [tensor("y")]}
    status = main(["optest", str(write_cases(tmp_path / "c.json", [raw])), "--impl-dir", str(EXAMPLES)])
    out = capsys.readouterr().out
    assert status == 1 and "ERROR" in out
    assert "no implementation of op 'NoSuchOp'" in out and str(EXAMPLES / "tbe" / "impl") in out
    assert str(EXAMPLES / "cpukernel" / "impl") in out


TIK_ADD = '''
from tbe import tik


def tik_add(x, y, z, kernel_name="tik_add"):
    """z = x + y over 128 float16 values, written with TIK."""
    tik_instance = tik.Tik()
    x_gm = tik_instance.Tensor("float16", (128,), name="x_gm", scope=tik.scope_gm)
    y_gm = tik_instance.Tensor("float16", (128,), name="y_gm", scope=tik.scope_gm)
    z_gm = tik_instance.Tensor("float16", (128,), name="z_gm", scope=tik.scope_gm)
    x_ub = tik_instance.Tensor("float16", (128,), name="x_ub", scope=tik.scope_ubuf)
    y_ub = tik_instance.Tensor("float16", (128,), name="y_ub", scope=tik.scope_ubuf)
    z_ub = tik_instance.Tensor("float16", (128,), name="z_ub", scope=tik.scope_ubuf)
    tik_instance.data_move(x_ub, x_gm, 0, 1, 8, 0, 0)
    tik_instance.data_move(y_ub, y_gm, 0, 1, 8, 0, 0)
    tik_instance.vec_add(128, z_ub, x_ub, y_ub, 1, 8, 8, 8)
    tik_instance.data_move(z_gm, z_ub, 0, 1, 8, 0, 0)
    tik_instance.BuildCCE(kernel_name=kernel_name, inputs=[x_gm, y_gm], outputs=[z_gm])
    return tik_instance
'''


def test_a_tik_op_file_takes_the_tbe_route(tmp_path):
    """A TIK op file named by impl_file (imply_type "tik") builds with BuildCCE into kernel_meta like
    cce_build_code, so it runs through the TBE backend and is profiled like a TBE kernel."""
    from npusim.optest.cases import load_cases
    from npusim.optest.runner import OpTestSession
    (tmp_path / "tik_add.py").write_text(TIK_ADD)
    (tmp_path / "golden.py").write_text("def calc(x, y, z):\n    return [x['value'] + y['value']]\n")
    raw = {"case_name": "Tik", "op": "TikAdd", "imply_type": "tik", "impl_file": "tik_add.py:tik_add",
           "calc_expect_func_file": "golden.py:calc", "input_desc": [tensor("x", shape=[128]), tensor("y", shape=[128])],
           "output_desc": [tensor("z", shape=[128])]}
    (case,) = load_cases(write_cases(tmp_path / "c.json", [raw]))
    result = OpTestSession().run_case(case, "Ascend910")
    assert result.kind == "tik"
    assert result.status == "PASS" and result.kernels == 1 and result.cycles > 0, result.describe()


USAGE = [
    (["optest"], "required: CASES.json"),
    (["optest", "missing.json"], "no such case file: missing.json"),
    (["optest", "CASES", "--soc", "Ascend999"], "unknown Ascend chip 'Ascend999'"),
    (["optest", "CASES", "--tolerance", "float16"], "a tolerance is DTYPE:ATOL,RTOL"),
    (["optest", "CASES", "--error-threshold", "2,3"], "an error threshold is THRESHOLD,RATIO"),
    (["optest", "CASES", "--impl-dir", "/no/such/dir"], "--impl-dir '/no/such/dir' is not a directory"),
    (["optest", "CASES", "--case", "Nope"], "no case to run"),
    (["optest", "CASES", "--report", "/no/such/dir/r.json"], "does not exist"),
    (["optest", "BAD"], "'output_desc' is empty"),
]


@pytest.mark.parametrize("argv, says", USAGE, ids=[s for _, s in USAGE])
def test_misuse_is_one_line_and_exit_status_2(argv, says, tmp_path, capsys):
    bad = write_cases(tmp_path / "bad.json", [{"case_name": "B", "op": "X", "input_desc": [], "output_desc": []}])
    argv = [str(EXAMPLES / "cases.json") if a == "CASES" else str(bad) if a == "BAD" else a for a in argv]
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == "" and says in err and err.count("\n") == 1 and err.startswith("npusim optest"), err


def test_help_exits_0(capsys):
    assert main(["optest", "--help"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: npusim optest") and "--ray ADDRESS" in out and "--tolerance" in out
