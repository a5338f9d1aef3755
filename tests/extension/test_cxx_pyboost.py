"""The 2.7+ C++ API on npusim: ``ms::Tensor`` (queries, operators, factories), ``PyboostRunner`` (Run, Call<N>,
PYBOOST_CALLER, workspace, contiguity), ``AclnnOpRunner`` + ``LAUNCH_ACLNN_FUNC``, ``LAUNCH_ACLNN`` argument
conversion, unknown aclnn names, and the profile of a C++ op.  The module is built for the CPU backend."""
import numpy as np
import pytest

import mindspore as ms
from mindspore import Tensor
from npusim.aclnn import (AclBoolArray, AclDataType, AclFloatArray, AclIntArray, AclnnNotFoundError, AclScalar,
                          AclTensor, AclTensorList)
from npusim.errors import ExtensionRuntimeError
from npusim.sim import profiler
from cxx_testkit import extension


@pytest.fixture(scope="module")
def pops(tmp_path_factory):
    return extension("pyboost_ops.cpp", tmp_path_factory, backend="CPU")


@pytest.fixture(scope="module")
def fops(tmp_path_factory):
    return extension("function_ops.cpp", tmp_path_factory)


def grid():
    return Tensor(np.arange(8, dtype=np.float32).reshape(2, 4))


def test_pyboost_runner_call_runs_aclnn_add(pops):
    x, y = grid(), Tensor(np.full((2, 4), 0.5, np.float32))
    out = pops.add(x, y)
    assert isinstance(out, Tensor) and out.dtype == ms.float32
    np.testing.assert_array_equal(out.asnumpy(), x.asnumpy() + 0.5)


def test_host_kernel_on_cpu_backend_gets_memory_and_workspace(pops):
    out = pops.host_double(Tensor(np.array([1.0, -2.5], np.float32)))
    assert out.asnumpy().tolist() == [2.0, -5.0]


def test_call_with_several_outputs_returns_a_tuple(pops):
    left, right = pops.halves(grid())
    np.testing.assert_array_equal(left.asnumpy(), [[0, 1], [4, 5]])
    np.testing.assert_array_equal(right.asnumpy(), [[2, 3], [6, 7]])


def test_call_checks_the_output_count(pops):
    with pytest.raises(RuntimeError, match=r"the output size should be equal to 2, but got 3") as err:
        pops.bad_count(grid())
    assert isinstance(err.value, ExtensionRuntimeError)


def test_pyboost_caller_takes_positional_arguments_only(pops):
    with pytest.raises(RuntimeError, match="Argument count mismatch: expected 3, got 2"):
        pops.argmin(grid(), 1)


def test_call_makes_arguments_contiguous_unless_told_not_to(pops):
    assert pops.seen_contiguous(grid(), True) is None
    with pytest.raises(RuntimeError, match="the function saw a strided tensor"):
        pops.seen_contiguous(grid(), False)


def test_chunk_views_are_strided_and_share_memory(pops):
    contiguous, stride, offset, shape = pops.strided_info(grid())
    assert (contiguous, stride, offset, shape) == (False, [4, 1], 2, [2, 2])


def test_aclnn_op_runner_with_launch_aclnn_func(pops):
    x = Tensor(np.array([[3.0, 1.0, 2.0], [0.0, 5.0, -1.0]], np.float32))
    out = pops.argmin(x, 1, False)
    assert out.dtype == ms.int64 and out.asnumpy().tolist() == [1, 2]
    assert pops.argmin(x, 0, True).asnumpy().tolist() == [[1, 0, 1]]


def test_launch_aclnn_with_a_tensor_list_and_a_plain_int(pops):
    a, b = Tensor(np.ones((1, 2), np.float32)), Tensor(np.zeros((2, 2), np.float32))
    out = pops.cat([a, b], 0)
    assert out.asnumpy().tolist() == [[1.0, 1.0], [0.0, 0.0], [0.0, 0.0]]


def test_unknown_aclnn_name_is_a_typed_error_naming_it(pops, fops):
    with pytest.raises(AclnnNotFoundError, match="aclnnNoSuchOperator"):
        pops.unknown(grid())
    with pytest.raises(AclnnNotFoundError, match="aclnnFrobnicate"):
        fops.launch_by_name("Frobnicate", grid(), 0)


def test_custom_launch_aclnn_takes_1_to_12_arguments(fops):
    with pytest.raises(RuntimeError, match="Aclnn custom only support arg nums between 1 and 12, but get: 13"):
        fops.launch_by_name("aclnnMul", grid(), 11)


def test_ms_tensor_queries_and_none(pops):
    assert pops.info(None) == (False,)
    defined, type_id, shape, numel, stride, offset, contiguous, has_memory = pops.info(grid())
    assert (defined, type_id, shape, numel, stride, offset, contiguous, has_memory) == \
        (True, 43, [2, 4], 8, [4, 1], 0, True, True)


def test_ms_tensor_operators(pops):
    x = grid()
    a = x.asnumpy()
    index = Tensor(np.array([1, 0]), ms.int64)
    reshaped, flat, half, selected, repeated, interleaved, by_tensor, part = pops.methods(x, index)
    np.testing.assert_array_equal(reshaped.asnumpy(), a.reshape(-1, 2))
    np.testing.assert_array_equal(flat.asnumpy(), a.reshape(-1))
    assert half.dtype == ms.float16 and half.asnumpy().tolist() == a.tolist()
    np.testing.assert_array_equal(selected.asnumpy(), a[[1, 0]])
    np.testing.assert_array_equal(repeated.asnumpy(), np.tile(a, (2, 1)))
    np.testing.assert_array_equal(interleaved.asnumpy(), np.repeat(a, 2, axis=0))
    np.testing.assert_array_equal(part.asnumpy(), a[:, 2:])
    np.testing.assert_array_equal(by_tensor.asnumpy(), np.repeat(a, [1, 0, 2, 1], axis=1))


def test_ms_tensor_factories(pops):
    three, floats, ints, ones, zeros, half = pops.factories()
    assert three.dtype == ms.int64 and three.shape == () and three.asnumpy().item() == 3
    assert floats.dtype == ms.float64 and floats.asnumpy().tolist() == [1.5, 2.5]
    assert ints.dtype == ms.int32 and ints.asnumpy().tolist() == [4, 5]
    assert ones.dtype == ms.float32 and ones.asnumpy().tolist() == [[1.0, 1.0], [1.0, 1.0]]
    assert zeros.dtype == ms.int32 and zeros.asnumpy().tolist() == [0, 0, 0]
    assert half.dtype == ms.float64 and half.asnumpy().item() == 0.5


def test_launch_aclnn_argument_conversion_follows_mindspores_table(pops):
    x = grid()
    args = pops.converted_args(x)
    kinds = [type(a) for a in args]
    assert kinds == [AclTensor, type(None), AclTensorList, AclIntArray, type(None), AclFloatArray, AclBoolArray,
                     AclScalar, AclScalar, AclDataType, str, bool, int, float, int]
    assert np.shares_memory(args[0].array, x.asnumpy())
    assert len(args[2]) == 2 and args[3].values == (1, 2) and args[5].values == (0.5,)
    assert args[6].values == (True, False)
    assert (args[7].value, args[7].dtype) == (2.5, "float64") and (args[8].value, args[8].dtype) == (True, "bool")
    assert args[9] == AclDataType.ACL_FLOAT16 and args[10] == "BSND"
    assert args[11:] == [True, 7, 0.25, 1]


def test_a_cxx_op_and_its_launches_appear_in_the_profile(fops):
    x, y = grid(), Tensor(np.full((2, 4), 2.0, np.float32))
    with profiler.profile() as prof:
        out = fops.mul(x, y)
        fops.abs_reduce_sum(x)
    names = [row["name"] for row in prof.rows()]
    assert any(n.startswith("aclnnMul") for n in names)
    assert any(n.startswith("aclnnAbs") for n in names) and any(n.startswith("aclnnReduceSum") for n in names)
    assert all(row["cycles"] > 0 for row in prof.rows())
    np.testing.assert_array_equal(out.asnumpy(), x.asnumpy() * 2)
