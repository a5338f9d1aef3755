"""The per-call fast path's caches stay correct: cached output layouts follow the shapes each reply reports,
outputs never alias the shared memory, a library replaced on disk is noticed by the worker (calls and listings),
and the reply timeout is the socket's own (SO_RCVTIMEO) on a blocking socket."""
import numpy as np
import pytest

from aicpu_loader import build_kernel_library, lookup
from aicpu_loader.plan import OutputSpec, plan_call
from aicpu_loader.worker import AicpuWorker

DEFAULT = "mindspore_aicpu_kernels"

TAGGED_SOURCE = r"""
#include "cpu_kernel.h"
#include "status.h"
namespace aicpu {
namespace { const char *kTagged = OP_NAME; }
class TaggedKernel : public CpuKernel {
 public:
  uint32_t Compute(CpuKernelContext &ctx) override {
    *static_cast<int64_t *>(ctx.Output(0)->GetData()) = TAG;
    return KERNEL_STATUS_OK;
  }
};
REGISTER_CPU_KERNEL(kTagged, TaggedKernel);
}  // namespace aicpu
"""


@pytest.fixture
def worker():
    w = AicpuWorker(timeout_s=30.0)
    yield w
    w.close()


def test_one_plan_follows_changing_dynamic_shapes(worker):
    library = str(lookup.find_library(DEFAULT))
    outputs = [OutputSpec("int32", (-1,), 8 * 4, unknown_rank=True), OutputSpec("int32", (8,), 8 * 4)]
    plan = plan_call(library, "Unique", [((8,), np.int32)], outputs)
    cases = [np.array([5, 3, 5, 7, 3, 3, 9, 1], np.int32), np.array([2, 2, 2, 2, 4, 4, 4, 4], np.int32),
             np.array([5, 3, 5, 7, 3, 3, 9, 1], np.int32), np.arange(8, dtype=np.int32)]
    results = [worker.run(plan, [x]).outputs for x in cases]
    for x, (y, idx) in zip(cases, results):
        expected = list(dict.fromkeys(x.tolist()))
        assert y.tolist() == expected, "each call must be shaped by its own reply, not a cached one"
        np.testing.assert_array_equal(y[idx], x)


def test_outputs_are_fresh_arrays(worker):
    library = str(lookup.find_library(DEFAULT))
    plan = plan_call(library, "Add", [((4,), np.float32), ((4,), np.float32)], [OutputSpec("float32", (4,), 16)])
    ones = np.ones(4, np.float32)
    (first,) = worker.run(plan, [np.arange(4, dtype=np.float32), ones]).outputs
    (second,) = worker.run(plan, [np.full(4, 10, np.float32), ones]).outputs
    assert first.tolist() == [1, 2, 3, 4] and second.tolist() == [11, 11, 11, 11]
    assert first.flags.owndata and not np.shares_memory(first, second)


def test_replaced_library_is_reloaded_for_calls_and_listings(worker, tmp_path):
    source = tmp_path / "tagged.cc"
    source.write_text(TAGGED_SOURCE)
    library = tmp_path / "libtagged.so"
    plan_for = {}
    for op_name, tag in (("TagOne", 1), ("TagTwo", 2)):
        build_kernel_library([source], library, defines=[f'OP_NAME="{op_name}"', f"TAG={tag}"])
        assert op_name in worker.list_kernels(str(library)), "a listing must come from the rebuilt file"
        plan_for[op_name] = plan_call(str(library), op_name, [], [OutputSpec("int64", (1,), 8)])
        (y,) = worker.run(plan_for[op_name], []).outputs
        assert y.tolist() == [tag]
    assert worker.list_kernels(str(library)) == ["TagTwo"]


def test_reply_timeout_is_set_on_a_blocking_socket(worker):
    library = str(lookup.find_library(DEFAULT))
    plan = plan_call(library, "Add", [((1,), np.float32), ((1,), np.float32)], [OutputSpec("float32", (1,), 4)])
    x = np.ones(1, np.float32)
    worker.run(plan, [x, x])
    assert worker._proc.sock.gettimeout() is None  # no poll() before every send and recv
    worker.run(plan, [x, x], timeout_s=0.5)
    assert worker._proc.timeout_s == 0.5
    (y,) = worker.run(plan, [x, x], timeout_s=float("inf")).outputs
    assert y.tolist() == [2.0]


def test_plan_keys_keep_equal_values_of_different_types_apart():
    """True, 1 and 1.0 compare equal in Python but encode as different attribute kinds for the kernel."""
    from npusim.custom.backends.aicpu import AicpuBackend
    from npusim.custom.backends.base import CallAttrs
    arrays, shapes, dtypes = [np.zeros(4, np.float32)], [(4,)], ["float32"]
    keys = {AicpuBackend._plan_key(arrays, CallAttrs(("a",), (value,)), shapes, dtypes)
            for value in (True, 1, 1.0, [1, 2], [1.0, 2.0])}
    assert len(keys) == 5
    assert AicpuBackend._plan_key(arrays, CallAttrs(("a",), ([1, 2],)), shapes, dtypes) == \
        AicpuBackend._plan_key(arrays, CallAttrs(("a",), ([1, 2],)), shapes, dtypes)
