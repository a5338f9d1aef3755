"""vcmp / vsel / vcmpsel / vlogic against numpy, and their graph shape (broadcast nodes for scalars)."""
import numpy as np
import pytest
from tvm import te

import te_compat.dsl as dsl
from te_compat.graph import CMP_OPS, extract

NUMPY_CMP = {"eq": np.equal, "ne": np.not_equal, "lt": np.less, "gt": np.greater, "ge": np.greater_equal,
             "le": np.less_equal}


def _pair(dtype, shape=(3, 24)):
    rng = np.random.default_rng(8)
    a = rng.integers(-3, 4, shape).astype(dtype)
    b = rng.integers(-3, 4, shape).astype(dtype)
    return (te.placeholder(shape, dtype, name="x"), te.placeholder(shape, dtype, name="y")), (a, b)


@pytest.mark.parametrize("dtype", ["float16", "float32", "int32"])
def test_vcmp_every_operation_bool_mode(run, dtype, chip910):
    (x, y), (a, b) = _pair(dtype)
    outs = [dsl.vcmp(x, y, op) for op in CMP_OPS] + [dsl.vcmp(x, 1, op) for op in CMP_OPS]
    results = run([x, y], outs, [a, b])
    for op, result in zip(CMP_OPS * 2, results):
        assert result.dtype == np.bool_
    for op, result in zip(CMP_OPS, results[:6]):
        np.testing.assert_array_equal(result, NUMPY_CMP[op](a, b), err_msg=op)
    for op, result in zip(CMP_OPS, results[6:]):
        np.testing.assert_array_equal(result, NUMPY_CMP[op](a, 1), err_msg=op)
    assert [o.op.tag for o in outs[:6]] == [f"elewise_binary_vcmpv_{op}" for op in CMP_OPS]
    scalar_graph = extract(outs[6])
    cmp_node = scalar_graph.nodes[scalar_graph.outputs[0]]
    assert [scalar_graph.nodes[i].tag for i in cmp_node.inputs][-1] == "broadcast"
    compare_dtype = "float32" if dtype == "int32" else dtype  # vcmpv has no int32 on the 910
    assert scalar_graph.nodes[cmp_node.inputs[-1]].dtype == compare_dtype


def test_vcmp_bit_mode_packs_eight_per_byte(run, chip910):
    (x, y), (a, b) = _pair("float16", (2, 32))
    out = dsl.vcmp(x, y, "lt", "bit")
    assert str(out.dtype) == "uint8" and [int(d) for d in out.shape] == [2, 4]
    result, = run([x, y], [out], [a, b])
    np.testing.assert_array_equal(result, np.packbits(a < b, axis=-1, bitorder="little"))


@pytest.mark.parametrize("dtype", ["float16", "float32"])
def test_vsel_with_tensors_and_scalars(run, dtype, chip910):
    (x, y), (a, b) = _pair(dtype)
    condition = dsl.vcmp(x, y, "gt")
    outs = [dsl.vsel(condition, x, y), dsl.vsel(condition, x, 2.5), dsl.vsel(condition, -1, y),
            dsl.vsel(condition, 1.0, 0.0)]
    both, right_scalar, left_scalar, scalars = run([x, y], outs, [a, b])
    mask = a > b
    np.testing.assert_array_equal(both, np.where(mask, a, b))
    np.testing.assert_array_equal(right_scalar, np.where(mask, a, np.dtype(dtype).type(2.5)))
    np.testing.assert_array_equal(left_scalar, np.where(mask, -1, b).astype(dtype))
    np.testing.assert_array_equal(scalars, mask.astype(np.float16))
    assert str(outs[3].dtype) == "float16"
    graph = extract(outs[1])
    sel = graph.nodes[graph.outputs[0]]
    assert sel.tag == "elewise_multiple_sel"
    assert [graph.nodes[i].tag for i in sel.inputs] == ["elewise_binary_vcmpv_gt", "", "broadcast"]
    assert graph.nodes[sel.inputs[2]].attrs == {"value": 2.5}


def test_vsel_with_bit_mask(run, chip910):
    (x, y), (a, b) = _pair("float16", (2, 16))
    mask = dsl.vcmp(x, y, "le", "bit")
    out = dsl.vsel(mask, x, y)
    result, = run([x, y], [out], [a, b])
    np.testing.assert_array_equal(result, np.where(a <= b, a, b))


def test_vcmpsel_defaults_and_forms(run, chip910):
    (x, y), (a, b) = _pair("float16")
    outs = [dsl.vcmpsel(x), dsl.vcmpsel(x, y, "ge"), dsl.vcmpsel(x, 0.0, "lt", 0.0, x),
            dsl.vcmpsel(x, y, "ne", 7.0, y)]
    defaults, tensors, relu_like, mixed = run([x, y], outs, [a, b])
    np.testing.assert_array_equal(defaults, np.where(a < 2.0, a, 0.0).astype(np.float16))
    np.testing.assert_array_equal(tensors, np.where(a >= b, a, b))
    np.testing.assert_array_equal(relu_like, np.where(a < 0, 0, a).astype(np.float16))
    np.testing.assert_array_equal(mixed, np.where(a != b, 7.0, b).astype(np.float16))
    tags = [n.tag for n in extract(outs[1]).nodes]
    assert tags[-2:] == ["elewise_binary_vcmpv_ge", "elewise_multiple_sel"]


def test_vcmpsel_int32_is_promoted(run, chip910):
    (x, y), (a, b) = _pair("int32")
    out = dsl.vcmpsel(x, y, "gt", x, y)
    assert str(out.dtype) == "float32"
    np.testing.assert_array_equal(run([x, y], [out], [a, b])[0], np.maximum(a, b).astype(np.float32))


def test_vlogic(run, chip910):
    (x, y), (a, b) = _pair("float16")
    p, q = dsl.vcmp(x, 0.0, "gt"), dsl.vcmp(y, 0.0, "gt")
    outs = [dsl.vlogic(p, q, "logic_and"), dsl.vlogic(p, q, "logic_or"), dsl.vlogic(p, operation="logic_not")]
    land, lor, lnot = run([x, y], outs, [a, b])
    np.testing.assert_array_equal(land, (a > 0) & (b > 0))
    np.testing.assert_array_equal(lor, (a > 0) | (b > 0))
    np.testing.assert_array_equal(lnot, ~(a > 0))
