"""Issue 15: a bad dtype string in the TVM API is a typed error naming the dtype: a RuntimeError, as CANN's TVM
raises (its TVMError), and a ValueError, as TVM 0.27 raises."""
import pytest

from npusim.errors import TbeDtypeError


@pytest.mark.parametrize("call", [
    lambda tvm: tvm.placeholder((4, 16), name="data", dtype="flaot16"),
    lambda tvm: tvm.const(1, "in32"),
    lambda tvm: tvm.var("n", dtype="float64x"),
])
def test_unknown_dtype_names_raise_a_typed_error(call):
    from te import tvm
    with pytest.raises(TbeDtypeError) as info:
        call(tvm)
    error = info.value
    assert isinstance(error, RuntimeError) and isinstance(error, ValueError)
    assert "unknown dtype" in str(error) and any(bad in str(error) for bad in ("flaot16", "in32", "float64x"))


def test_the_placeholder_error_names_the_tensor_and_a_cann_style_op_sees_runtime_error(tensor_dict):
    import te.lang.cce
    from te import tvm

    def op_with_a_typo(x, y, kernel_name="typo"):
        data = tvm.placeholder(x["shape"], name="data_x", dtype=x["dtype"].lower())
        return te.lang.cce.vabs(data)

    with pytest.raises(RuntimeError, match="tvm.placeholder 'data_x': unknown dtype 'flaot32'"):
        op_with_a_typo(tensor_dict([8], "FLAOT32"), tensor_dict([8], "float32"))


def test_valid_dtypes_still_pass():
    from te import tvm
    assert tvm.placeholder((2,), name="b", dtype="bool").dtype == "bool"
    assert tvm.const(1, "uint8").dtype == "uint8"
