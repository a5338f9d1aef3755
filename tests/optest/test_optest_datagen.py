"""Input data: msopst's distributions over value_range, seeded per case so every process draws the same data."""
import numpy as np
import pytest

from npusim.errors import CaseFileError
from npusim.optest.cases import TensorDesc
from npusim.optest.datagen import case_rng, generate, generate_inputs
from npusim.optest.cases import load_cases
from optest_support import scaled_add_case, write_cases


def desc(dtype="float32", shape=(2000,), distribution="uniform", value_range=(0.1, 1.0), value=None):
    return TensorDesc("x", "ND", dtype, shape, distribution=distribution, value_range=value_range, value=value)


def test_the_same_case_draws_the_same_data_whatever_else_runs(tmp_path):
    cases = load_cases(write_cases(tmp_path / "c.json", [scaled_add_case("A"), scaled_add_case("B")]))
    first = generate_inputs(cases[0], seed=7)
    alone = generate_inputs(load_cases(tmp_path / "c.json", {"A"})[0], seed=7)
    assert all(np.array_equal(a, b) for a, b in zip(first, alone))
    other = generate_inputs(cases[1], seed=7)
    assert not np.array_equal(first[0], other[0]) and not np.array_equal(first[0], first[1])
    assert not np.array_equal(first[0], generate_inputs(cases[0], seed=8)[0])


@pytest.mark.parametrize("distribution, low, high, check", [
    ("uniform", -3.0, 2.0, lambda d: d.min() >= -3.0 and d.max() < 2.0),
    ("relu", -1.0, 1.0, lambda d: d.min() == 0.0 and d.max() < 1.0 and (d == 0).mean() > 0.3),
    ("sigmoid", -4.0, 4.0, lambda d: d.min() > 0.0 and d.max() < 1.0),
    ("tanh", -2.0, 2.0, lambda d: d.min() > -1.0 and d.max() < 1.0),
    ("softmax", 0.0, 1.0, lambda d: abs(d.sum() - 1.0) < 1e-3),
    ("normal", 5.0, 0.5, lambda d: abs(d.mean() - 5.0) < 0.1 and 0.4 < d.std() < 0.6),
    ("laplace", -2.0, 1.0, lambda d: abs(np.median(d) + 2.0) < 0.15),
    ("beta", 2.0, 5.0, lambda d: d.min() >= 0.0 and d.max() <= 1.0 and abs(d.mean() - 2 / 7) < 0.03),
    ("triangular", 1.0, 3.0, lambda d: d.min() >= 1.0 and d.max() <= 3.0),
])
def test_distributions_read_value_range_as_msopst_does(distribution, low, high, check):
    data = generate(desc(distribution=distribution, value_range=(low, high)), case_rng(0, "c", 0))
    assert data.dtype == np.float32 and data.shape == (2000,)
    assert check(data.astype(np.float64))


def test_integer_and_bool_inputs_stay_in_their_dtype():
    ints = generate(desc("int8", value_range=(-1000, 1000)), case_rng(0, "i", 0))
    assert ints.dtype == np.int8 and ints.min() == -128 and ints.max() == 127
    flags = generate(desc("bool"), case_rng(0, "b", 0))
    assert flags.dtype == np.bool_ and 0.3 < flags.mean() < 0.7


def test_a_given_value_wins_over_the_distribution(tmp_path):
    data = generate(desc("int32", (2, 2), value=[[1, 2], [3, 4]]), case_rng(0, "v", 0))
    assert data.tolist() == [[1, 2], [3, 4]] and data.dtype == np.int32
    path = tmp_path / "x.bin"
    np.arange(6, dtype=np.float16).tofile(path)
    assert generate(desc("float16", (2, 3), value=str(path)), None).tolist() == [[0, 1, 2], [3, 4, 5]]
    with pytest.raises(CaseFileError, match="holds 3 float32 values"):
        generate(desc("float32", (2, 2), value=str(tmp_path / "x.bin")), None)
    with pytest.raises(CaseFileError, match="'value' has shape"):
        generate(desc("int32", (3,), value=[1, 2]), None)
