"""A kernel that crashes raises AotKernelCrash; the process survives and the next call works."""
import signal

import numpy as np
import pytest

from npusim.custom.backends.base import CallAttrs
from npusim.errors import AotKernelCrash, KernelRuntimeError

from aot_test_support import kernel_source, make_backend

SMALL = np.ones(4, np.float32)
BIG = np.full(4, 20.0, np.float32)


def _launch(backend, x):
    return backend.launch([x], CallAttrs(), [x.shape], ["float32"])


def test_segfault_becomes_an_error_and_the_next_call_works():
    backend = make_backend(kernel_source("crashing.cc") + ":CustomSegfaultWhenBig", name="crashy")
    np.testing.assert_array_equal(_launch(backend, SMALL)[0], 2 * SMALL)
    with pytest.raises(AotKernelCrash, match=r"crashy.*CustomSegfaultWhenBig.*signal 11") as caught:
        _launch(backend, BIG)
    assert caught.value.signal_number == signal.SIGSEGV
    assert isinstance(caught.value, KernelRuntimeError)
    np.testing.assert_array_equal(_launch(backend, SMALL + 1)[0], 2 * (SMALL + 1))


def test_abort_becomes_an_error():
    backend = make_backend(kernel_source("crashing.cc") + ":CustomAborts")
    with pytest.raises(AotKernelCrash, match="Abort") as caught:
        _launch(backend, SMALL)
    assert caught.value.signal_number == signal.SIGABRT


def test_stack_overflow_becomes_an_error():
    backend = make_backend(kernel_source("crashing.cc") + ":CustomOverflowsStack")
    with pytest.raises(AotKernelCrash, match="signal 11"):
        _launch(backend, SMALL)
    backend_ok = make_backend(kernel_source("crashing.cc") + ":CustomSegfaultWhenBig")
    np.testing.assert_array_equal(_launch(backend_ok, SMALL)[0], 2 * SMALL)
