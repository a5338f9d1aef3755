"""Fixtures for the aclnn operator tests: one Ascend910 runtime with its own store per test module (kernels built
once per module), and ``acl`` to call an operator on it."""
import numpy as np
import pytest

from npusim.aclnn import call
from npusim.sim.runtime import new_runtime


@pytest.fixture(scope="module")
def rt():
    return new_runtime("Ascend910")


@pytest.fixture
def acl(rt):
    """``acl(api, *args)``: ``npusim.aclnn.call(api, args, rt)``."""
    return lambda api, *args: call(api, list(args), rt)


@pytest.fixture
def rng():
    return np.random.default_rng(1234)
