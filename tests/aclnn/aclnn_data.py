"""Test data for the aclnn operator tests."""
import numpy as np

TOL = {"float16": 2e-3, "float32": 1e-5, "float64": 1e-12}


def data(rng, shape, dtype, low=-4.0, high=4.0):
    """Random ``dtype`` data: bools, integers in [low, high), floats uniform in [low, high)."""
    if dtype == "bool":
        return rng.integers(0, 2, size=shape).astype(bool)
    if np.dtype(dtype).kind in "iu":
        return rng.integers(int(low), int(high), size=shape).astype(dtype)
    return rng.uniform(low, high, size=shape).astype(dtype)


def assert_close(actual, expected, dtype=None):
    """Exact for integers and bools, relative + absolute TOL for floats (of ``actual``'s dtype)."""
    dtype = dtype or actual.dtype.name
    expected = np.asarray(expected)
    assert actual.shape == expected.shape, (actual.shape, expected.shape)
    if dtype == "bool" or np.dtype(dtype).kind in "iu":
        np.testing.assert_array_equal(actual, expected.astype(actual.dtype))
    else:
        tol = TOL[dtype]
        np.testing.assert_allclose(actual.astype(np.float64), expected.astype(np.float64), rtol=tol, atol=tol)
