"""Issue 11 item 5: float16 constant arithmetic folds as CANN's TVM folds it (TVM 0.27 leaves it unfolded), so a
scalar built from constants is a constant the tensor-scalar DSL functions accept."""
import numpy as np
import pytest


def test_reciprocal_of_a_float16_const_is_a_const():
    from te import tvm
    value = 1 / tvm.const(0.5, "float16")
    assert value.dtype == "float16" and type(value.value) is float and value.value == 2.0


@pytest.mark.parametrize("make,expected", [
    (lambda tvm: tvm.const(3.0, "float16") * tvm.const(0.25, "float16"), 0.75),
    (lambda tvm: tvm.const(1.0, "float16") - tvm.const(0.125, "float16") + 2, 2.875),
    (lambda tvm: -tvm.const(0.5, "float16"), -0.5),
    (lambda tvm: (1 / tvm.const(3.0, "float16")) * 3, 1.0),
    (lambda tvm: tvm.const(6.0, "bfloat16") / tvm.const(4.0, "bfloat16"), 1.5),
])
def test_constant_arithmetic_folds_in_double_precision(make, expected):
    from te import tvm
    value = make(tvm)
    assert value.value == pytest.approx(expected, rel=1e-12)


def test_expressions_with_variables_are_left_alone():
    from te import tvm
    n = tvm.var("n", dtype="float16")
    assert "n" in str(n * tvm.const(2.0, "float16"))


def test_vmuls_accepts_a_folded_scalar_like_cann_op_code_writes_it(tmp_path, monkeypatch):
    """The rsqrt-grad style: ``vmuls(x, 1 / tvm.const(scale, dtype))``; built and run on the simulator."""
    import te.lang.cce as tbe
    from te import tvm
    from te_compat.build import load_built
    monkeypatch.chdir(tmp_path)
    data = tvm.placeholder((4, 64), name="data", dtype="float16")
    res = tbe.vmuls(tbe.vadds(data, -tvm.const(0.5, "float16")), 1 / tvm.const(0.25, "float16"))
    with tvm.target.cce():
        sch = tbe.auto_schedule(res)
    tbe.cce_build_code(sch, {"name": "scaled", "tensor_list": [data, res]})
    x = np.linspace(-2, 2, 256, dtype=np.float16).reshape(4, 64)
    (out,) = load_built("scaled").run(x)
    np.testing.assert_array_equal(out, ((x - np.float16(0.5)) * np.float16(4)).astype(np.float16))


def test_the_dsl_reads_raw_tvm_constant_expressions_too():
    import tvm as raw_tvm
    import te_compat.dsl as dsl
    x = raw_tvm.te.placeholder((16,), "float16", name="x")
    scalar = raw_tvm.tirx.const(1.0, "float16") / raw_tvm.tirx.const(0.5, "float16")
    assert float(dsl.vmuls(x, scalar).op.attrs["scalar"]) == 2.0
