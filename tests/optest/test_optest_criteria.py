"""CANN's precision criteria: the per-dtype standard of the op test frame and msopst's error threshold."""
import numpy as np
import pytest

from npusim.optest.criteria import (
    PrecisionStandard, Tolerances, compare_output, compare_standard, compare_threshold, default_standard,
    parse_threshold, parse_tolerance, standard_from_json,
)


def perturbed(n_off: int, factor: float, size: int = 10000, dtype=np.float32):
    expected = np.linspace(1.0, 2.0, size).astype(dtype)
    actual = expected.copy()
    actual[:n_off] = (expected[:n_off] * factor).astype(dtype)
    return actual, expected


def test_cann_defaults_per_dtype():
    assert default_standard("float16") == PrecisionStandard(0.001, 0.001, 0.1)
    assert default_standard("float32") == PrecisionStandard(0.0001, 0.0001, 0.01)
    assert default_standard("int8") == PrecisionStandard(0.001, 1, 1, "absolute")
    assert default_standard("int32") == PrecisionStandard(0.001, 0.001, 0.1)
    assert default_standard("bool").atol == 0


def test_float16_allows_one_in_a_thousand_off_by_more_than_a_thousandth():
    standard = default_standard("float16")
    ok = compare_standard(*perturbed(10, 1.005), standard)          # 10 of 10000 off by 0.5 %: allowed
    assert ok.passed and ok.error_count == 10 and ok.error_ratio == 0.001
    bad = compare_standard(*perturbed(11, 1.005), standard)         # 11: one too many
    assert not bad.passed and "11 of 10000 elements exceed atol 0.001" in bad.message
    far = compare_standard(*perturbed(1, 1.2), standard)            # one element off by 20 % > max_atol 10 %
    assert not far.passed and "exceed max_atol 0.1" in far.message
    assert far.max_rel_error == pytest.approx(0.2, rel=1e-6)


def test_float32_is_ten_times_stricter():
    actual, expected = perturbed(2, 1.0005)
    assert compare_standard(actual, expected, default_standard("float16")).passed
    assert not compare_standard(actual, expected, default_standard("float32")).passed


def test_int8_is_judged_in_absolute_units():
    expected = np.arange(-50, 50, dtype=np.int8)
    assert compare_standard(expected + 1, expected, default_standard("int8")).passed       # off by 1: within atol
    result = compare_standard(expected + 2, expected, default_standard("int8"))
    assert not result.passed and result.error_count == 100 and result.max_abs_error == 2


def test_nan_matches_nan_and_a_lone_nan_fails():
    expected = np.array([1.0, np.nan, np.inf, -np.inf], dtype=np.float32)
    assert compare_standard(expected.copy(), expected, default_standard("float32")).passed
    actual = expected.copy()
    actual[0] = np.nan
    assert not compare_standard(actual, expected, default_standard("float32")).passed


def test_msopst_error_threshold():
    """An element whose relative difference exceeds the threshold is an error; at most `ratio` of them, and none
    at 0.1 or more."""
    assert compare_threshold(*perturbed(400, 1.05), (0.01, 0.05)).passed          # 4 % off by 5 %
    assert not compare_threshold(*perturbed(600, 1.05), (0.01, 0.05)).passed      # 6 % > 5 %
    worst = compare_threshold(*perturbed(1, 1.5), (0.01, 0.05))                     # one off by 33 % (rel. to max)
    assert not worst.passed and "reaches 0.1" in worst.message
    tiny = compare_threshold(np.array([0.0, 1e-4]), np.array([0.0, 0.0]), (0.01, 0.05))   # |d| < threshold: abs
    assert tiny.passed and tiny.error_count == 0


def test_sizes_must_match():
    result = compare_standard(np.zeros(3), np.zeros(4), default_standard("float32"))
    assert not result.passed and "3 elements but the golden has 4" in result.message


def test_precedence_command_line_then_case_then_default():
    actual, expected = perturbed(50, 1.005)                       # 0.5 % of float32 elements off by 0.5 %
    assert not compare_output(actual, expected, "float32").passed
    loose = PrecisionStandard(0.01, 0.01, 0.1)
    assert compare_output(actual, expected, "float32", case_standard=loose).passed
    strict = Tolerances({"float32": default_standard("float32")})
    assert not compare_output(actual, expected, "float32", case_standard=loose, tolerances=strict).passed
    assert compare_output(actual, expected, "float32", case_threshold=(0.01, 0.05)).passed
    cli = Tolerances(error_threshold=(0.001, 0.001))
    result = compare_output(actual, expected, "float32", case_threshold=(0.01, 0.05), tolerances=cli)
    assert not result.passed and result.method == "threshold"
    assert compare_output(actual, expected, "float32", tolerances=Tolerances({"all": loose})).passed


def test_parsing_user_criteria():
    assert parse_tolerance("float16:0.005,0.002,0.1") == ("float16", PrecisionStandard(0.002, 0.005, 0.1))
    assert parse_tolerance("int32:1,0,absolute") == ("int32", PrecisionStandard(0.0, 1.0, None, "absolute"))
    assert parse_threshold("[0.01,0.05]") == (0.01, 0.05) and parse_threshold("0.02,0.1") == (0.02, 0.1)
    for bad in ("float16", "float16:x,y", "float16:1", ":1,2"):
        with pytest.raises(ValueError):
            parse_tolerance(bad)
    with pytest.raises(ValueError):
        parse_threshold("0.1")
    assert standard_from_json({"rtol": 0.1, "atol": 0.2, "max_atol": None}) == PrecisionStandard(0.1, 0.2)
    with pytest.raises(ValueError):
        standard_from_json({"rtol": 0.1, "atol": 0.2, "precision_type": "other"})
