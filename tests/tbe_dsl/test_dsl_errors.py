"""Argument checks: typed errors that name the DSL function and the cause (TBE raises RuntimeError for most)."""
import pytest
from tvm import te

import te_compat.dsl as dsl
from npusim.errors import TbeArgumentError, TbeTypeError


@pytest.fixture
def tensors():
    return (te.placeholder((4, 16), "float16", name="a"), te.placeholder((4, 8), "float16", name="b"),
            te.placeholder((4, 16), "int32", name="c"))


def test_tensor_where_a_scalar_is_expected(tensors):
    a, _, _ = tensors
    for func in (dsl.vadds, dsl.vmuls, dsl.vmaxs, dsl.vmins):
        with pytest.raises(TbeTypeError, match=rf"{func.__name__}: .*must be a scalar.*tensor 'a'"):
            func(a, a)
    with pytest.raises(TbeTypeError, match="vaxpy: .*scalar"):
        dsl.vaxpy(a, a, a)
    with pytest.raises(TbeTypeError, match="vlrelu: the alpha"):
        dsl.vlrelu(a, a)


def test_scalar_where_a_tensor_is_expected(tensors):
    a, _, _ = tensors
    with pytest.raises(TbeTypeError, match="vadd: the second input must be a tvm tensor"):
        dsl.vadd(a, 1.0)
    with pytest.raises(TbeTypeError, match="vexp: the input must be a tvm tensor"):
        dsl.vexp([1.0, 2.0])
    with pytest.raises(TbeTypeError, match="vmla"):
        dsl.vmla(a, a, 2.0)


def test_shapes_must_match_without_broadcast(tensors):
    a, b, _ = tensors
    with pytest.raises(TbeArgumentError, match=r"vadd: .*\[4, 8\] must equal .*\[4, 16\].*broadcast"):
        dsl.vadd(a, b)
    with pytest.raises(TbeArgumentError, match="vmadd"):
        dsl.vmadd(a, a, b)
    with pytest.raises(TbeArgumentError, match="vsel"):
        dsl.vsel(dsl.vcmp(a, a), a, b)
    with pytest.raises(RuntimeError):  # TBE raises RuntimeError: TbeArgumentError is one
        dsl.vmul(a, b)


def test_unsupported_dtypes(tensors):
    a, _, c = tensors
    with pytest.raises(TbeArgumentError, match=r"vand: input dtype float16 is not supported on Ascend910 .*int16"):
        dsl.vand(a, a)
    with pytest.raises(TbeArgumentError, match="vnot"):
        dsl.vnot(c)
    with pytest.raises(TbeArgumentError, match="floor: the input must be float16 or float32, got int32"):
        dsl.floor(c)
    with pytest.raises(TbeArgumentError, match="cast_to: unknown dtype 'float128'"):
        dsl.cast_to(a, "float128")
    with pytest.raises(TbeArgumentError, match="cast_to: casting to bool"):
        dsl.cast_to(a, "bool")
    with pytest.raises(TbeArgumentError, match="vmod"):
        dsl.vmod(te.placeholder((4,), "int16", name="s"), te.placeholder((4,), "int16", name="t"))


def test_compare_and_select_arguments(tensors):
    a, _, c = tensors
    with pytest.raises(TbeArgumentError, match="vcmp: operation 'lte' is not one of eq, ne, lt, gt, ge, le"):
        dsl.vcmp(a, a, "lte")
    with pytest.raises(TbeArgumentError, match="vcmp: mode 'bits'"):
        dsl.vcmp(a, a, "lt", "bits")
    with pytest.raises(TbeArgumentError, match="vcmp: mode 'bit' needs the last dimension to be a multiple of 8"):
        dsl.vcmp(te.placeholder((3, 12), "float16", name="odd"), 0.0, "lt", "bit")
    with pytest.raises(TbeTypeError, match="vsel: the condition must be a bool tensor"):
        dsl.vsel(a, a, a)
    with pytest.raises(TbeTypeError, match="vlogic: inputs must be bool tensors"):
        dsl.vlogic(c, c)
    with pytest.raises(TbeArgumentError, match="vcmpsel: operation"):
        dsl.vcmpsel(a, operation="bigger")


def test_reduce_and_broadcast_arguments(tensors):
    a, b, _ = tensors
    with pytest.raises(TbeArgumentError, match=r"sum: axis 2 is out of range \[-2, 1\]"):
        dsl.sum(a, 2)
    with pytest.raises(TbeArgumentError, match="reduce_max: the axis list is empty"):
        dsl.reduce_max(a, [])
    with pytest.raises(TbeArgumentError, match="reduce_sum: keepdims must be a bool"):
        dsl.reduce_sum(a, 0, keepdims="yes")
    with pytest.raises(TbeArgumentError, match="broadcast: for tensor broadcasting every source dim"):
        dsl.broadcast(b, [4, 16])
    with pytest.raises(TbeArgumentError, match="broadcast: cannot broadcast shape"):
        dsl.broadcast(a, [16])
    with pytest.raises(TbeArgumentError, match="broadcast: shape\\[1\\] is -1; npusim compiles per concrete shape"):
        dsl.broadcast(1.0, [4, -1])
    with pytest.raises(TbeArgumentError, match="tuple_sum"):
        dsl.tuple_sum([a, b], 0)


def test_symbolic_dims_are_rejected():
    n = te.var("n")
    x = te.placeholder((n, 16), "float16", name="dyn")
    with pytest.raises(TbeArgumentError, match="vabs: dimension 0 of tensor 'dyn' is the symbolic n; npusim "
                                               "compiles per concrete shape"):
        dsl.vabs(x)


def test_data_movement_arguments(tensors):
    a, b, c = tensors
    with pytest.raises(TbeArgumentError, match="concat: input 1 has dtype int32"):
        dsl.concat([a, c], 0)
    with pytest.raises(TbeArgumentError, match="concat: input 1 shape"):
        dsl.concat([a, b], 0)
    with pytest.raises(TbeArgumentError, match="split: size_splits"):
        dsl.split(a, 1, [10, 10])
    with pytest.raises(TbeArgumentError, match="transpose: axes"):
        dsl.transpose(a, [0, 0])
    with pytest.raises(TbeArgumentError, match="slice: stride"):
        dsl.slice(a, [0, 0], [4, 16], [1, 0])
    with pytest.raises(TbeArgumentError, match="gather: indices dtype must be int32 or int64"):
        dsl.gather(a, a, 0)
    with pytest.raises(TbeArgumentError, match="unsorted_segment_sum: segment_ids has 3 entries"):
        dsl.unsorted_segment_sum(a, [0, 1, 2], 3)
    with pytest.raises(TbeTypeError, match="unsorted_segment_sum: segment_ids must be a Python list"):
        dsl.unsorted_segment_sum(a, c, 3)
    with pytest.raises(TbeArgumentError, match=r"inplace_add: inplace_ids\[0\] = 9 is outside \[0, 4\)"):
        dsl.inplace_add(a, [9], te.placeholder((1, 16), "float16", name="r"))
    with pytest.raises(TbeArgumentError, match="clip: max_value 0.0 is smaller than min_value 1.0"):
        dsl.clip(a, 0.0, 1.0)
