"""Parsing msopst case files: fields, defaults, msopst's expansion and naming, and the errors a bad file gets."""
import pytest

from npusim.errors import CaseFileError
from npusim.optest.cases import load_cases
from optest_support import EXAMPLES, scaled_add_case, tensor, write_cases


def test_a_single_valued_case_keeps_its_name_and_fields(tmp_path):
    path = write_cases(tmp_path / "c.json", [scaled_add_case("Only", shape=(4, 8), alpha=2.0)])
    (case,) = load_cases(path)
    assert case.name == "Only" and case.op == "ScaledAdd"
    assert [t.name for t in case.inputs] == ["x1", "x2"] and case.outputs[0].shape == (4, 8)
    assert case.inputs[0].dtype == "float16" and case.inputs[0].value_range == (-1.0, 1.0)
    assert case.attrs[0].name == "alpha" and case.attrs[0].value == 2.0 and case.attrs[0].type == "float"
    assert case.expect_func == (str(EXAMPLES / "golden.py"), "calc_scaled_add")
    assert case.expect == "success" and case.source == str(path.resolve())


def test_msopst_defaults_for_distribution_and_range(tmp_path):
    raw = {"case_name": "D", "op": "Neg", "input_desc": [tensor("x")], "output_desc": [tensor("y")]}
    (case,) = load_cases(write_cases(tmp_path / "c.json", [raw]))
    assert case.inputs[0].distribution == "uniform" and case.inputs[0].value_range == (0.1, 1.0)
    assert case.expect_func is None


def test_lists_expand_as_msopst_crosses_them(tmp_path):
    """format x shape x type per tensor (in that order), the i-th sub case takes the i-th of every tensor."""
    raw = {"case_name": "Test/Add", "op": "Add",
           "input_desc": [tensor("x1", ["float16", "float32"], [[2, 3], [4]]),
                          tensor("x2", ["float16", "float32"], [[2, 3], [4]])],
           "output_desc": [tensor("y", ["float16", "float32"], [[2, 3], [4]])]}
    cases = load_cases(write_cases(tmp_path / "c.json", [raw, scaled_add_case("After")]))
    assert [c.name for c in cases] == [f"Test_Add_sub_case_{i:03d}" for i in range(1, 5)] + ["After"]
    assert [(c.inputs[0].shape, c.inputs[0].dtype) for c in cases[:4]] == [
        ((2, 3), "float16"), ((2, 3), "float32"), ((4,), "float16"), ((4,), "float32")]
    assert all(c.outputs[0].shape == c.inputs[0].shape and c.outputs[0].dtype == c.inputs[0].dtype
               for c in cases[:4])
    assert [c.index for c in cases] == [0, 1, 2, 3, 4]


def test_distributions_and_ranges_are_crossed_for_inputs_only(tmp_path):
    raw = {"case_name": "R", "op": "Neg",
           "input_desc": [tensor("x", "float32", [8], data_distribute=["uniform", "normal"],
                                 value_range=[[0, 1], [-5, 5]])],
           "output_desc": [tensor("y", "float32", [8])]}
    cases = load_cases(write_cases(tmp_path / "c.json", [raw]))
    assert [(c.inputs[0].distribution, c.inputs[0].value_range) for c in cases] == [
        ("uniform", (0, 1)), ("uniform", (-5, 5)), ("normal", (0, 1)), ("normal", (-5, 5))]
    assert all(c.outputs[0].shape == (8,) for c in cases)


def test_ori_format_and_ori_shape_travel_with_format_and_shape(tmp_path):
    raw = {"case_name": "O", "op": "Neg",
           "input_desc": [tensor("x", "float16", [[1, 1, 4, 4, 16], [2, 1, 4, 4, 16]], format=["NC1HWC0"],
                                 ori_format=["NCHW"], ori_shape=[[1, 16, 4, 4], [2, 16, 4, 4]])],
           "output_desc": [tensor("y", "float16", [[1, 1, 4, 4, 16], [2, 1, 4, 4, 16]], format=["NC1HWC0"])]}
    cases = load_cases(write_cases(tmp_path / "c.json", [raw]))
    assert [(c.inputs[0].format, c.inputs[0].ori_format, c.inputs[0].ori_shape) for c in cases] == [
        ("NC1HWC0", "NCHW", (1, 16, 4, 4)), ("NC1HWC0", "NCHW", (2, 16, 4, 4))]


def test_msopst_float_is_float32_and_dynamic_shapes_run_their_typical_shape(tmp_path):
    raw = {"case_name": "T", "op": "Neg",
           "input_desc": [tensor("x", "float", [-1, 8], typical_shape=[3, 8])],
           "output_desc": [tensor("y", "float", [-1, 8], typical_shape=[3, 8])]}
    (case,) = load_cases(write_cases(tmp_path / "c.json", [raw]))
    assert case.inputs[0].dtype == "float32" and case.inputs[0].shape == (3, 8)


def test_a_bare_expect_file_names_the_function_after_the_op(tmp_path):
    (tmp_path / "golden.py").write_text("def ScaledAdd(**kw):\n    pass\n")
    raw = scaled_add_case("G", calc_expect_func_file="golden.py")
    (case,) = load_cases(write_cases(tmp_path / "c.json", [raw]))
    assert case.expect_func == (str(tmp_path / "golden.py"), "ScaledAdd")


def test_filtering_by_case_name_keeps_the_expanded_names_of_a_case(tmp_path):
    raw = scaled_add_case("Multi", dtype=["float16", "float32"])
    raw["output_desc"][0]["type"] = ["float16", "float32"]
    path = write_cases(tmp_path / "c.json", [raw, scaled_add_case("Other")])
    assert [c.name for c in load_cases(path, {"Multi"})] == ["Multi_sub_case_001", "Multi_sub_case_002"]
    assert [c.name for c in load_cases(path, {"Other"})] == ["Other"]


def test_the_example_file_has_twenty_cases_over_three_ops():
    cases = load_cases(EXAMPLES / "cases.json")
    assert len(cases) >= 20 and {c.op for c in cases} == {"ScaledAdd", "ScaleShift", "AddTik"}
    assert {c.imply_type for c in cases} == {None, "tik"}


BAD = [
    ({"op": "X", "input_desc": [], "output_desc": []}, "required field 'case_name'"),
    ({"case_name": "B", "op": "", "input_desc": [], "output_desc": [tensor("y")]}, "'op' must be"),
    ({"case_name": "B", "op": "X", "input_desc": [tensor("x")], "output_desc": []}, "'output_desc' is empty"),
    ({"case_name": "B", "op": "X", "input_desc": [tensor("x", "bfloat16")], "output_desc": [tensor("y")]},
     "type 'bfloat16' is not supported"),
    ({"case_name": "B", "op": "X", "input_desc": [tensor("x", "fuzz")], "output_desc": [tensor("y")]}, "fuzz"),
    ({"case_name": "B", "op": "X", "input_desc": [tensor("x", ["float16", "float32"])],
      "output_desc": [tensor("y")]}, "number of 'type' values differs"),
    ({"case_name": "B", "op": "X", "input_desc": [tensor("x", value_range=[2, 1])], "output_desc": [tensor("y")]},
     "maximum is less than the minimum"),
    ({"case_name": "B", "op": "X", "input_desc": [tensor("x", format="WXYZ")], "output_desc": [tensor("y")]},
     "'format' value 'WXYZ' is not supported"),
    ({"case_name": "B", "op": "X", "input_desc": [tensor("x", shape=[-1, 4])], "output_desc": [tensor("y")]},
     "no positive 'typical_shape'"),
    ({"case_name": "B", "op": "X", "input_desc": [tensor("x")], "output_desc": [tensor("y")],
      "attr": [{"name": "a", "type": "complex", "value": 1}]}, "attr 'a': type 'complex'"),
    ({"case_name": "B", "op": "X", "input_desc": [tensor("x")], "output_desc": [tensor("y")],
      "calc_expect_func_file": "missing.py:f"}, "no such file"),
    ({"case_name": "B", "op": "X", "input_desc": [tensor("x")], "output_desc": [tensor("y")],
      "error_threshold": [0.01, 2]}, "'error_threshold' must be"),
    ({"case_name": "B", "op": "X", "input_desc": [tensor("x")], "output_desc": [tensor("y")], "expect": "maybe"},
     "'expect' must be"),
]


@pytest.mark.parametrize("raw, says", BAD, ids=[s for _, s in BAD])
def test_a_bad_case_names_the_file_the_case_and_the_field(raw, says, tmp_path):
    path = write_cases(tmp_path / "bad.json", [raw])
    with pytest.raises(CaseFileError) as info:
        load_cases(path)
    assert says in str(info.value) and str(path) in str(info.value)


def test_duplicate_names_and_bad_json_are_errors(tmp_path):
    path = write_cases(tmp_path / "dup.json", [scaled_add_case("Same"), scaled_add_case("Same")])
    with pytest.raises(CaseFileError, match="'Same' is used twice"):
        load_cases(path)
    (tmp_path / "broken.json").write_text("[{")
    with pytest.raises(CaseFileError, match="not valid JSON"):
        load_cases(tmp_path / "broken.json")
    with pytest.raises(CaseFileError, match="cannot read"):
        load_cases(tmp_path / "absent.json")
