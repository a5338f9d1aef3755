"""AICPU through the MindSpore front end: ops.Custom(func_type="aicpu") with CustomRegOp attributes of every kind
passed positionally after the tensors, fixed attributes (value=...) taken from the reg info, and dynamic outputs."""
import numpy as np
import pytest

from aicpu_test_support import TEST_LIBRARY_NAME


@pytest.fixture
def mindspore():
    import npusim.compat  # noqa: F401  (makes `mindspore` importable)
    import mindspore
    return mindspore


def _echo_op(mindspore):
    from mindspore import ops
    from mindspore.ops import CustomRegOp, DataType, custom_info_register

    info = (CustomRegOp("AttrEcho").input(0, "x").output(0, "numbers").output(1, "text")
            .attr("i", "required", "int").attr("f", "required", "float").attr("b", "required", "bool")
            .attr("s", "required", "str").attr("li", "required", "listInt").attr("lf", "required", "listFloat")
            .attr("lb", "required", "listBool").attr("ls", "required", "listStr")
            .attr("lli", "required", "listListInt", value=[[1, 2], [3]])
            .attr("cust_aicpu", "required", "str", value=TEST_LIBRARY_NAME)
            .dtype_format(DataType.F32_Default, DataType.F64_Default, DataType.U8_Default)
            .target("Ascend").get_op_info())

    @custom_info_register(info)
    def attr_echo():
        """AttrEcho of the test kernel library."""

    return ops.Custom(attr_echo, out_shape=lambda x, *attrs: ((-1,), (-1,)),
                      out_dtype=lambda x, *attrs: (mindspore.float64, mindspore.uint8), func_type="aicpu")


def test_positional_attributes_of_every_kind_reach_the_kernel(mindspore, on_lib_path):
    op = _echo_op(mindspore)
    x = mindspore.Tensor(np.zeros(1, np.float32))
    numbers, text = op(x, -7, 0.25, True, "hello", [1, -2, 3], [0.5, 1.5], [True, False], ["a", "bc"])
    expected = [-7, 0.25, 1, 3, 1, -2, 3, 2, 0.5, 1.5, 2, 1, 0, 2, 2, 1, 2, 1, 3]
    np.testing.assert_array_equal(numbers.asnumpy(), expected)
    assert numbers.shape == (len(expected),), "the dynamic output comes back with the length the kernel set"
    assert bytes(text.asnumpy()) == b"hello|a,bc"
    numbers, text = op(x, 9, -1.0, False, "", [], [], [], [])
    np.testing.assert_array_equal(numbers.asnumpy(), [9, -1, 0, 0, 0, 0, 2, 2, 1, 2, 1, 3])
    assert bytes(text.asnumpy()) == b"|"
