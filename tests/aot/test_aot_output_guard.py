"""Issue 11 item 13: a kernel that writes outside its output is caught by guard bytes and reported as a typed
error naming the op and the output, instead of corrupting the heap (the interpreter used to die later, in GC)."""
import gc

import numpy as np
import pytest

from npusim.custom.backends.base import CallAttrs
from npusim.errors import AotOutputOverrunError, KernelRuntimeError

from aot_test_support import kernel_source, make_backend

X = np.arange(4, dtype=np.float32)


def _launch(func, name, n_outputs=1):
    backend = make_backend(kernel_source("overrun.cc") + ":" + func, name=name)
    return backend.launch([X], CallAttrs(), [X.shape] * n_outputs, ["float32"] * n_outputs)


def test_writing_past_the_end_of_an_output_is_an_error():
    message = r"'past_end'.*CustomWritesPastEnd.*12 bytes past the end of output 0"
    with pytest.raises(AotOutputOverrunError, match=message) as caught:
        _launch("CustomWritesPastEnd", "past_end")
    assert isinstance(caught.value, KernelRuntimeError)
    assert caught.value.output_index == 0
    assert caught.value.bytes_after == 12  # three float32 elements too many
    gc.collect()  # the heap is intact: collecting everything the failed call left behind is harmless


def test_writing_before_the_start_of_an_output_is_an_error():
    with pytest.raises(AotOutputOverrunError, match=r"4 bytes before the start of output 0") as caught:
        _launch("CustomWritesBeforeStart", "before_start")
    assert caught.value.bytes_before == 4


def test_the_error_names_the_output_that_overran():
    with pytest.raises(AotOutputOverrunError, match="output 0") as caught:
        _launch("CustomFirstOfTwoOverruns", "two_outputs", n_outputs=2)
    assert caught.value.output_index == 0 and caught.value.bytes_after == 4


def test_a_well_behaved_kernel_still_works_after_an_overrun():
    with pytest.raises(AotOutputOverrunError):
        _launch("CustomWritesPastEnd", "past_end_again")
    gc.collect()
    backend = make_backend(kernel_source("crashing.cc") + ":CustomSegfaultWhenBig")
    (out,) = backend.launch([X], CallAttrs(), [X.shape], ["float32"])
    np.testing.assert_array_equal(out, 2 * X)
