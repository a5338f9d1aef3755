"""Fixtures for the DSL tests: compile DSL graphs with TVM/LLVM on the CPU and run them on numpy arrays."""
import numpy as np
import pytest
import tvm
from tvm import te

import npusim.sim


def compile_and_run(inputs, outputs, arrays):
    """Build one LLVM module for placeholders ``inputs`` -> tensors ``outputs`` and run it on ``arrays``.

    Returns the output arrays (numpy), one per output tensor.
    """
    outputs = list(outputs) if isinstance(outputs, (list, tuple)) else [outputs]
    func = te.create_prim_func(list(inputs) + outputs)
    module = tvm.compile(func, target="llvm")
    device = tvm.cpu()
    args = [tvm.runtime.tensor(np.ascontiguousarray(a), device) for a in arrays]
    results = [tvm.runtime.tensor(np.zeros([int(d) for d in t.shape], str(t.dtype)), device) for t in outputs]
    module(*args, *results)
    return [r.numpy() for r in results]


@pytest.fixture
def run():
    """``run(inputs, outputs, arrays) -> [numpy results]`` (TVM/LLVM on the CPU)."""
    return compile_and_run


@pytest.fixture
def chip310():
    """The Ascend310 ("mini") instruction table for the duration of a test."""
    npusim.sim.set_chip("Ascend310")
    yield npusim.sim.current_chip()
    npusim.sim.set_chip(None)


@pytest.fixture
def chip910():
    """The Ascend910 instruction table for the duration of a test (whatever NPUSIM_SOC says)."""
    npusim.sim.set_chip("Ascend910")
    yield npusim.sim.current_chip()
    npusim.sim.set_chip(None)


@pytest.fixture(params=["Ascend910", "Ascend310"])
def chip(request):
    """Each test once per chip table: Ascend910 ("cloud", 32 cores) and Ascend310 ("mini", 2 cores)."""
    npusim.sim.set_chip(request.param)
    yield request.param
    npusim.sim.set_chip(None)
