"""Formats an op test case states reach a TBE impl as msopst passes them: the dict's format / ori_format /
ori_shape are the case's (the data already have that layout: no TransData), and cases that differ only in format
build separate kernels."""
from __future__ import annotations

import json

from optest_support import tensor, write_cases

FMT_OP = '''
import json
import os

import te.lang.cce as tbe
from te import tvm


def fmt_op(x, y, kernel_name="fmt_op"):
    """y = x + 1, logging the dicts it was given."""
    with open(os.environ["NPUSIM_TEST_FMT_LOG"], "a") as log:
        log.write(json.dumps([x, y]) + "\\n")
    data = tvm.placeholder(x["shape"], name="x", dtype=x["dtype"])
    res = tbe.vadds(data, 1.0)
    with tvm.target.cce():
        sch = tbe.auto_schedule(res)
    tbe.cce_build_code(sch, {"name": kernel_name, "tensor_list": [data, res]})
'''


def test_case_formats_reach_the_impl_dicts(tmp_path, monkeypatch):
    from npusim.optest.cases import load_cases
    from npusim.optest.runner import OpTestSession
    log = tmp_path / "dicts.jsonl"
    monkeypatch.setenv("NPUSIM_TEST_FMT_LOG", str(log))
    (tmp_path / "fmt_op.py").write_text(FMT_OP)
    (tmp_path / "golden.py").write_text("def calc(x, y):\n    return [x['value'] + 1]\n")
    five_d = dict(shape=[1, 2, 4, 4, 16], format="NC1HWC0", ori_format="NCHW", ori_shape=[1, 32, 4, 4])
    cases = [{"case_name": f"Fmt_{i}", "op": "FmtOp", "impl_file": "fmt_op.py:fmt_op",
              "calc_expect_func_file": "golden.py:calc", "input_desc": [tensor("x", **desc)],
              "output_desc": [tensor("y", **desc)]}
             for i, desc in enumerate([five_d, dict(shape=[1, 2, 4, 4, 16])])]
    session = OpTestSession()
    results = [session.run_case(case, "Ascend910") for case in load_cases(write_cases(tmp_path / "c.json", cases))]
    assert [r.status for r in results] == ["PASS", "PASS"], [r.describe() for r in results]
    first, second = [json.loads(line) for line in log.read_text().splitlines()]
    assert first[0] == {"shape": [1, 2, 4, 4, 16], "dtype": "float16", "format": "NC1HWC0",
                        "ori_shape": [1, 32, 4, 4], "ori_format": "NCHW"}
    assert first[1]["format"] == "NC1HWC0"
    assert second[0]["format"] == "ND" and second[0]["ori_format"] == "ND"
    assert second[0]["ori_shape"] == [1, 2, 4, 4, 16]
