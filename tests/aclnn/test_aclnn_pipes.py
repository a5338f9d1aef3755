"""Where the operators run: element-wise, cast, reduce, expand and batch-norm kernels on the vector unit, the gathers
and windows on the scalar pipe, all on the runtime's simulated device; other chips work too."""
import numpy as np
import pytest

from npusim.aclnn import AclDataType, AclIntArray, AclScalar, AclTensor, AclTensorList, call, operators
from npusim.sim import profile
from npusim.sim.runtime import new_runtime


def launches(runtime, api, args) -> list:
    with profile(runtime) as session:
        call(api, args, runtime)
    return session.rows()


def vector_share(rows) -> float:
    return max(row["utilisation"].get("V", 0.0) for row in rows)


@pytest.fixture(scope="module")
def rt910():
    return new_runtime("Ascend910")


@pytest.mark.parametrize("api, make", [
    ("aclnnMul", lambda x: [AclTensor(x), AclTensor(x), AclTensor(np.zeros_like(x))]),
    ("aclnnAdd", lambda x: [AclTensor(x), AclTensor(x), AclScalar(2, "float32"), AclTensor(np.zeros_like(x))]),
    ("aclnnExp", lambda x: [AclTensor(x), AclTensor(np.zeros_like(x))]),
    ("aclnnCast", lambda x: [AclTensor(x), AclDataType.ACL_FLOAT16, AclTensor(np.zeros(x.shape, np.float16))]),
    ("aclnnReduceSum", lambda x: [AclTensor(x), AclIntArray([1]), False, AclDataType.ACL_FLOAT,
                                  AclTensor(np.zeros(x.shape[0], np.float32))]),
    ("aclnnExpand", lambda x: [AclTensor(x[:1]), AclIntArray(list(x.shape)), AclTensor(np.zeros_like(x))]),
])
def test_dsl_operators_run_vector_instructions(rt910, api, make):
    x = np.linspace(-1, 1, 64 * 40, dtype=np.float32).reshape(64, 40)
    rows = launches(rt910, api, make(x))
    assert rows and all(row["cycles"] > 0 for row in rows)
    assert vector_share(rows) > 0, rows


def test_scalar_pipe_operators_are_single_scalar_programs(rt910):
    x = np.linspace(-1, 1, 24, dtype=np.float32).reshape(4, 6)
    for api, args in [("aclnnArgMin", [AclTensor(x), 1, False, AclTensor(np.zeros(4, np.int64))]),
                      ("aclnnCat", [AclTensorList([AclTensor(x), AclTensor(x)]), 0,
                                    AclTensor(np.zeros((8, 6), np.float32))])]:
        rows = launches(rt910, api, args)
        assert len(rows) == 1 and rows[0]["busiest_pipe"] == "S" and rows[0]["instructions"] == 1
        assert vector_share(rows) == 0


def test_the_declared_pipe_of_each_operator_is_vector_or_scalar():
    pipes = {op.name: op.pipe for op in operators()}
    assert set(pipes.values()) == {"vector", "scalar"}
    assert pipes["aclnnMul"] == "vector" and pipes["aclnnIndex"] == "scalar"


def test_batch_norm_is_four_vector_kernels(rt910):
    x = np.linspace(-2, 2, 2 * 3 * 16, dtype=np.float32).reshape(2, 3, 16)
    stat = [np.zeros(3, np.float32) for _ in range(4)]
    rows = launches(rt910, "aclnnBatchNorm", [AclTensor(x), None, None, AclTensor(stat[0]), AclTensor(stat[1]), True,
                                              0.1, 1e-5, AclTensor(np.zeros_like(x)), AclTensor(stat[2]),
                                              AclTensor(stat[3])])
    assert len(rows) == 4 and all(row["utilisation"].get("V", 0) > 0 for row in rows)


@pytest.mark.parametrize("chip", ["Ascend310", "Ascend910B1"])
def test_operators_run_on_other_chips(chip):
    runtime = new_runtime(chip)
    x = np.linspace(-3, 3, 96, dtype=np.float16).reshape(8, 12)
    out, total = np.zeros_like(x), np.zeros(8, np.float32)
    rows = launches(runtime, "aclnnAdd", [AclTensor(x), AclTensor(x), AclScalar(0.5, "float32"), AclTensor(out)])
    call("aclnnReduceSum", [AclTensor(x), AclIntArray([1]), False, AclDataType.ACL_FLOAT, AclTensor(total)], runtime)
    assert rows[0]["chip"] == chip
    np.testing.assert_allclose(out.astype(np.float32), 1.5 * x.astype(np.float32), rtol=2e-3)
    np.testing.assert_allclose(total, x.astype(np.float64).sum(1), rtol=1e-3, atol=1e-2)
