"""The kernel runtime as kernels see it: attributes of every kind, context introspection, ParallelFor on real
threads, a fresh kernel object per call, per-call log capture."""
import numpy as np
import pytest

from aicpu_test_support import TEST_LIBRARY_NAME
from npusim.errors import AicpuAttrError, AicpuParamInvalidError, OpValueError
from npusim.custom.backends.aicpu import AicpuBackend
from npusim.custom.backends.base import OpDesc

ECHO_ATTRS = [("i", "int"), ("f", "float"), ("b", "bool"), ("s", "str"), ("li", "listInt"), ("lf", "listFloat"),
              ("lb", "listBool"), ("ls", "listStr"), ("lli", "all")]


def _echo(make_op, **values):
    op = make_op("AttrEcho", 1, 2, attrs=ECHO_ATTRS, library=TEST_LIBRARY_NAME)
    numbers, text = op([np.zeros(1, np.float32)], [(-1,), (-1,)], ["float64", "uint8"], **values)
    return numbers, bytes(text).decode()


def test_every_attribute_kind_reaches_attr_value(make_op, on_lib_path):
    numbers, text = _echo(make_op, i=-7, f=0.25, b=True, s="hello", li=[1, -2, 3], lf=[0.5, 1.5], lb=[True, False],
                          ls=["a", "bc"], lli=[[1, 2], [3]])
    expected = [-7, 0.25, 1, 3, 1, -2, 3, 2, 0.5, 1.5, 2, 1, 0, 2, 2, 1, 2, 1, 3]
    np.testing.assert_array_equal(numbers, expected)
    assert text == "hello|a,bc"


def test_empty_lists_and_numpy_scalars(make_op, on_lib_path):
    numbers, text = _echo(make_op, i=np.int64(5), f=np.float32(2.0), b=np.bool_(False), s="", li=[], lf=[], lb=[],
                          ls=[], lli=[])
    np.testing.assert_array_equal(numbers, [5, 2.0, 0, 0, 0, 0, 0])
    assert text == "|"


def test_attribute_type_mismatch_is_rejected_before_running(make_op, on_lib_path):
    with pytest.raises(AicpuAttrError, match="attribute 'li'"):
        _echo(make_op, i=1, f=1.0, b=True, s="x", li=["not", "ints"], lf=[], lb=[], ls=[], lli=[])
    with pytest.raises(AicpuAttrError, match="attribute 'i'"):
        _echo(make_op, i="seven", f=1.0, b=True, s="x", li=[], lf=[], lb=[], ls=[], lli=[])


def test_missing_attribute_is_null_in_the_kernel(make_op, on_lib_path):
    op = make_op("AttrEcho", 1, 2, attrs=ECHO_ATTRS[:3], library=TEST_LIBRARY_NAME)
    with pytest.raises(AicpuParamInvalidError) as info:
        op([np.zeros(1, np.float32)], [(-1,), (-1,)], ["float64", "uint8"], i=1, f=1.0, b=True)
    assert any("missing attr s" in line for line in info.value.log_lines)


def test_context_introspection(make_op, on_lib_path):
    op = make_op("Introspect", 2, 2, library=TEST_LIBRARY_NAME,
                 rows=[[("float16", "NCHW"), ("int32", "DefaultFormat"), ("int64", "ND"), ("float32", "ND")]])
    x = np.ones((2, 3, 4, 5), np.float16)
    info, second = op([x, np.zeros(3, np.int32)], [(12,), (-1,)], ["int64", "float32"])
    inputs, outputs, rank, count, dtype, fmt, unknown_rank, aligned, missing_null, cpus, second_count, size = info
    assert (inputs, outputs, rank, count) == (2, 2, 4, 120)
    assert dtype == 1 and fmt == 0, "DT_FLOAT16 in FORMAT_NCHW from the matching dtype_format row"
    assert unknown_rank == 1 and second_count == -1, "a dynamic output is unknown-rank until the kernel sets it"
    assert aligned == 1 and missing_null == 1 and cpus >= 1 and size == x.nbytes
    assert second.shape == (0,)


def test_scalar_input_has_rank_zero_and_one_element(make_op, on_lib_path):
    op = make_op("Introspect", 1, 1, library=TEST_LIBRARY_NAME)
    (info,) = op([np.array(3.0, np.float64)], [(12,)], ["int64"])
    assert info[2] == 0 and info[3] == 1 and info[4] == 11


@pytest.mark.parametrize("total, per_unit", [(1, 1), (7, 1), (1000, 10), (64, 0), (5, 100)])
def test_parallel_for_covers_every_index_once(make_op, on_lib_path, total, per_unit):
    op = make_op("ParallelCover", 1, 2, attrs=[("per_unit", "int")], library=TEST_LIBRARY_NAME)
    visits, stats = op([np.zeros(1, np.int8)], [(total,), (2,)], ["int32", "int64"], per_unit=per_unit)
    np.testing.assert_array_equal(visits, np.ones(total, np.int32))
    threads, ranges = stats
    assert 1 <= threads <= ranges


def test_parallel_for_runs_on_several_threads(make_op, on_lib_path):
    op = make_op("ParallelCover", 1, 2, attrs=[("per_unit", "int")], library=TEST_LIBRARY_NAME)
    (info,) = make_op("Introspect", 1, 1, library=TEST_LIBRARY_NAME)([np.zeros(1)], [(12,)], ["int64"])
    _, stats = op([np.zeros(1, np.int8)], [(400,), (2,)], ["int32", "int64"], per_unit=1)
    if info[9] < 2:
        pytest.skip("the simulated AI CPU has one thread here")
    assert stats[0] >= 2, "ranges ran on more than one thread"


def test_fresh_kernel_object_per_call(make_op, on_lib_path):
    op = make_op("FreshObject", 1, 1, library=TEST_LIBRARY_NAME)
    for _ in range(3):
        (count,) = op([np.zeros(1)], [(1,)], ["int64"])
        assert count[0] == 1


def test_log_lines_are_captured_per_call(make_op, on_lib_path):
    op = make_op("AttrEcho", 1, 2, attrs=ECHO_ATTRS, library=TEST_LIBRARY_NAME)
    values = dict(i=1, f=1.0, b=True, s="x", li=[], lf=[], lb=[], ls=[], lli=[])
    for _ in range(2):
        op([np.zeros(1, np.float32)], [(-1,), (-1,)], ["float64", "uint8"], **values)
        lines = op.backend.last_log_lines
        assert len(lines) == 1 and "echoed 7 numbers" in lines[0] and lines[0].startswith("[INFO]")


def test_reg_info_is_required():
    desc = OpDesc(func=None, name="dropout2d_aicpu", reg_info=None, device_target="Ascend", func_type="aicpu")
    with pytest.raises(ValueError, match="reg_info"):
        AicpuBackend(desc)
    with pytest.raises(OpValueError):
        AicpuBackend(OpDesc(func=None, name="f", reg_info={"inputs": []}, device_target="Ascend",
                            func_type="aicpu"))


def test_forked_child_gets_its_own_worker(make_op):
    import os
    from aicpu_loader.worker import default_worker

    op = make_op("Cast", 1, 1, library="mindspore_aicpu_kernels")
    x = np.arange(4, dtype=np.float32)
    op([x], [(4,)], ["int32"])
    parent_worker = default_worker().pid
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # child: must not talk to (or disturb) the parent's worker or shared memory
        try:
            (y,) = op([x * 3], [(4,)], ["int32"])
            ok = y.tolist() == [0, 3, 6, 9] and default_worker().pid != parent_worker
        except BaseException:
            ok = False
        os.write(write_end, b"1" if ok else b"0")
        os._exit(0)
    os.close(write_end)
    os.waitpid(pid, 0)
    assert os.read(read_end, 1) == b"1"
    os.close(read_end)
    (y,) = op([x + 1], [(4,)], ["int32"])
    assert y.tolist() == [1, 2, 3, 4] and default_worker().pid == parent_worker
