"""A kernel that writes past an output is caught by the guard zone npusim keeps after every output: a typed
AicpuOutputOverrunError names the op, the output and how far the kernel wrote, instead of a silently changed next
output; the worker keeps serving calls (issue 11, item 10)."""
import numpy as np
import pytest

from aicpu_loader import build_kernel_library
from aicpu_loader.plan import GUARD_MIN_BYTES, OutputSpec, plan_call
from aicpu_loader.worker import default_worker
from aicpu_test_support import KERNEL_DIR
from npusim.errors import AicpuOutputOverrunError, AicpuRuntimeError

LIBRARY = "overrun_kernels"
SPLIT_ATTRS = [("head", "int"), ("bug", "int")]


@pytest.fixture(scope="module")
def overrun_library(tmp_path_factory):
    out = tmp_path_factory.mktemp("overrun") / f"lib{LIBRARY}.so"
    return build_kernel_library([KERNEL_DIR / "overrun_kernels.cc"], out).path


@pytest.fixture
def split_at(make_op, monkeypatch, overrun_library):
    monkeypatch.setenv("NPUSIM_AICPU_LIB_PATH", str(overrun_library.parent))
    op = make_op("SplitAt", 1, 2, attrs=SPLIT_ATTRS, library=LIBRARY)

    def run(x, head, bug):
        return op([x], [(head,), (x.size - head,)], ["float32", "float32"], head=head, bug=bug)
    return run


def test_every_output_is_followed_by_a_guard_zone():
    outputs = [OutputSpec("float32", (3,), 12), OutputSpec("int8", (0,), 0), OutputSpec("float64", (64,), 512)]
    plan = plan_call("/lib/libx.so", "Op", [((5,), np.float32)], outputs)
    ends = [slot.offset + slot.size_bytes for slot in plan.outputs]
    following = [slot.offset for slot in plan.outputs[1:]] + [plan.request_offset]
    for slot, end, nxt in zip(plan.outputs, ends, following):
        assert slot.guard_bytes >= GUARD_MIN_BYTES and end + slot.guard_bytes == nxt and nxt % 64 == 0


def test_correct_split(split_at):
    x = np.arange(10, dtype=np.float32)
    first, second = split_at(x, 4, 0)
    np.testing.assert_array_equal(first, x[:4])
    np.testing.assert_array_equal(second, x[4:] * 2)


def test_off_by_one_past_output_0_is_reported_with_op_output_and_extent(split_at):
    x = np.arange(10, dtype=np.float32)
    with pytest.raises(AicpuOutputOverrunError) as info:
        split_at(x, 4, 1)
    err = info.value
    assert isinstance(err, AicpuRuntimeError) and isinstance(err, RuntimeError)
    assert (err.op_type, err.output_index, err.overrun_bytes, err.reached_guard_end) == ("SplitAt", 0, 4, False)
    assert err.overruns == ((0, 4, False),)
    assert "'SplitAt'" in str(err) and "output 0 (buffer of 16 bytes): wrote 4 bytes past its end" in str(err)


def test_overrun_past_the_whole_guard_is_reported_as_at_least(split_at):
    x = np.arange(1000, dtype=np.float32)
    with pytest.raises(AicpuOutputOverrunError) as info:
        split_at(x, 10, 2)
    err = info.value
    assert err.output_index == 0 and err.reached_guard_end and err.overrun_bytes == err.guard_bytes
    assert err.guard_bytes >= GUARD_MIN_BYTES
    assert f"output 0 (buffer of 40 bytes): wrote at least {err.guard_bytes} bytes past its end" in str(err)


def test_overrun_past_the_last_output(split_at):
    x = np.arange(7, dtype=np.float32)
    with pytest.raises(AicpuOutputOverrunError) as info:
        split_at(x, 3, 3)
    assert (info.value.output_index, info.value.overrun_bytes) == (1, 4)
    assert "output 1 (buffer of 16 bytes): wrote 4 bytes past its end" in str(info.value)


def test_worker_serves_calls_after_an_overrun(split_at):
    x = np.arange(12, dtype=np.float32)
    split_at(x, 5, 0)
    pid = default_worker().pid
    for bug in (1, 2, 3):
        with pytest.raises(AicpuOutputOverrunError):
            split_at(x, 5, bug)
        first, second = split_at(x, 5, 0)
        np.testing.assert_array_equal(first, x[:5])
        np.testing.assert_array_equal(second, x[5:] * 2)
    assert default_worker().pid == pid
