"""akg/hybrid Custom ops with device_target "Ascend" run on the simulated device (one tvm_call instruction) and
give the CPU path's results; the profiler records them; out-of-range reads are typed errors."""
import numpy as np
import pytest

import mindspore.ops as ops
from mindspore import Tensor, context

import npusim.sim as sim
from npusim.custom.backends.base import CallAttrs, OpDesc
from npusim.custom.backends.hybrid import AkgBackend, HybridBackend
from npusim.errors import OutOfBoundsError
from npusim.hybrid import kernel

RNG = np.random.default_rng(3)


def add(a, b):
    c = output_tensor(a.shape, a.dtype)
    for i0 in range(a.shape[0]):
        for i1 in range(a.shape[1]):
            c[i0, i1] = a[i0, i1] + b[i0, i1]
    return c


@kernel
def scaled_stats(a, scale, repeat, offset=0.5):
    out = output_tensor((a.shape[0] * repeat,), a.dtype)
    count = output_tensor((1,), "int32")
    n = 0
    for i in range(a.shape[0] * repeat):
        out[i] = a[i % a.shape[0]] * scale + offset
        if out[i] > 1.0:
            n += 1
    count[0] = n
    return out, count


@kernel
def update_in_place(a, b):
    d = output_tensor(b.shape, b.dtype)
    for i in range(a.shape[0]):
        a[i] = a[i] * b[i]
        d[i] = a[i] - 1.0
    return a, d


@kernel
def shift_left(a):
    b = output_tensor(a.shape, a.dtype)
    for i in range(a.shape[0]):
        b[i] = a[i + 1]
    return b


def _pair(func, func_type="hybrid"):
    cls = HybridBackend if func_type == "hybrid" else AkgBackend
    return (cls(OpDesc(func, func.__name__, None, "CPU", func_type)),
            cls(OpDesc(func, func.__name__, None, "Ascend", func_type)))


def _call(op, arrays, attrs=CallAttrs()):
    shapes, dtypes = op.infer([a.shape for a in arrays], [a.dtype.name for a in arrays], attrs)
    return op.launch(list(arrays), attrs, shapes, dtypes)


def test_seed_add_through_custom_on_ascend_is_profiled():
    context.set_context(device_target="Ascend")
    op = ops.Custom(add, out_shape=lambda x, y: x, out_dtype=lambda x, y: x, func_type="akg")
    x0 = np.array([[0.0, 0.0], [1.0, 1.0]], np.float32)
    x1 = np.array([[2.0, 2.0], [3.0, 3.0]], np.float32)
    with sim.profile() as prof:
        out = op(Tensor(x0), Tensor(x1))
    np.testing.assert_array_equal(out.asnumpy(), [[2.0, 2.0], [4.0, 4.0]])
    (row,) = prof.rows()
    assert row["name"] == "hybrid_add" and row["busiest_pipe"] == "S" and row["cycles"] > 0
    assert prof.records[0].kernel.body[0].opcode == "tvm_call"


def test_cpu_target_does_not_touch_the_device():
    context.set_context(device_target="CPU")
    op = ops.Custom(add, out_shape=lambda x, y: x, out_dtype=lambda x, y: x, func_type="akg")
    with sim.profile() as prof:
        out = op(Tensor(np.ones((2, 3), np.float32)), Tensor(np.ones((2, 3), np.float32)))
    np.testing.assert_array_equal(out.asnumpy(), np.full((2, 3), 2.0))
    assert prof.records == []


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_attributes_locals_and_two_outputs_match_the_cpu_path(dtype):
    a = RNG.random(7).astype(dtype)
    cpu, npu = _pair(scaled_stats)
    for attrs in (CallAttrs(("scale", "repeat"), (1.5, 2)), CallAttrs(("scale", "repeat", "offset"), (0.25, 3, 0.75))):
        expected = _call(cpu, [a], attrs)
        with sim.profile() as prof:
            got = _call(npu, [a], attrs)
        assert len(prof.records) == 1
        for e, g in zip(expected, got):
            assert e.dtype == g.dtype and e.shape == g.shape
            np.testing.assert_array_equal(g, e)


def test_returned_input_is_updated_and_callers_array_is_untouched():
    a, b = RNG.random(5).astype(np.float32), RNG.random(5).astype(np.float32)
    keep = a.copy()
    cpu, npu = _pair(update_in_place)
    for e, g in zip(_call(cpu, [a, b]), _call(npu, [a, b])):
        np.testing.assert_array_equal(g, e)
    np.testing.assert_array_equal(a, keep)


def test_signature_is_built_once_and_device_memory_is_released():
    _, npu = _pair(add, "akg")
    x = np.ones((3, 3), np.float32)
    device = sim.default_device()
    before = device.gm.used_bytes
    first = _call(npu, [x, x])
    assert len(npu._signatures) == 1
    second = _call(npu, [x, x])
    assert len(npu._signatures) == 1
    np.testing.assert_array_equal(first[0], second[0])
    assert device.gm.used_bytes == before


def test_out_of_range_read_is_a_typed_error_on_ascend():
    _, npu = _pair(shift_left)
    with pytest.raises(OutOfBoundsError, match=r"kernel 'hybrid_shift_left'.*out-of-bounds access: a"):
        _call(npu, [np.arange(6, dtype=np.float32)])
