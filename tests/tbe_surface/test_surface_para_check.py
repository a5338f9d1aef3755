"""para_check / op_utils / topi.cce.util checks: they pass good arguments and raise typed errors (RuntimeError, as
in CANN) naming the op and the parameter for bad ones."""
import pytest

from npusim.errors import TbeArgumentError


def para_check():
    from tbe.common.utils import para_check as module
    return module


def make_op():
    pc = para_check()

    @pc.check_op_params(pc.REQUIRED_INPUT, pc.OPTION_INPUT, pc.REQUIRED_OUTPUT, pc.REQUIRED_ATTR_INT,
                        pc.REQUIRED_ATTR_FLOAT, pc.OPTION_ATTR_BOOL, pc.OPTION_ATTR_STR, pc.OPTION_ATTR_LIST_INT,
                        pc.OPTION_ATTR_LIST_LIST_INT, pc.OPTION_ATTR_TYPE, pc.KERNEL_NAME)
    def my_op(x, bias, y, count, scale, flag=False, mode="a", axes=None, pads=None, dst_type=None,
              kernel_name="my_op"):
        return "built"
    return my_op


def test_check_op_params_accepts_a_valid_call(tensor_dict):
    my_op = make_op()
    x, y = tensor_dict([2, 3]), tensor_dict([2, 3])
    assert my_op(x, None, y, 3, 0.5, True, "b", [0, 1], [[1, 2]], "float16", "my_op_1") == "built"
    assert my_op(x, tensor_dict([3]), y, 3, 0.5, kernel_name="k", axes=(1,)) == "built"
    assert my_op(x, None, y, 0, 0) == "built"  # CANN skips zero/empty attribute values


@pytest.mark.parametrize("change,message", [
    (lambda a: a.__setitem__(0, None), r"In op\[my_op\], the mandatory parameter\[x\] is missed"),
    (lambda a: a.__setitem__(0, [2, 3]), r"parameter\[x\]'s type should be \[dict\], but actually is \[list\]"),
    (lambda a: a[0].pop("ori_format"), r"the input\[x\] does not contain the item\[ori_format\]"),
    (lambda a: a[0].pop("dtype"), r"the input\[x\] does not contain the item\[dtype\]"),
    (lambda a: a[2].pop("shape"), r"the input\[y\] does not contain the item\[shape\]"),
    (lambda a: a[0].__setitem__("format", "NOPE"), r"the format of input\[x\] should be one of"),
    (lambda a: a[0].__setitem__("dtype", "float7"), r"parameter\[x\]'s dtype should be one of .* \[float7\]"),
    (lambda a: a[0].__setitem__("shape", [2, 3.0]), r"type should be \[int\]"),
    (lambda a: a[0].__setitem__("shape", [-3, 3]), r"npusim compiles each op per concrete shape"),  # -1: dynamic
    (lambda a: a.__setitem__(3, 2.5), r"parameter\[count\]'s type should be \[int\], but actually is \[float\]"),
    (lambda a: a.__setitem__(4, 1), r"parameter\[scale\]'s type should be \[float\], but actually is \[int\]"),
    (lambda a: a.__setitem__(4, None), r"the mandatory parameter\[scale\] is missed"),
    (lambda a: a.__setitem__(5, "yes"), r"parameter\[flag\]'s type should be \[bool\]"),
    (lambda a: a.__setitem__(6, 3), r"parameter\[mode\]'s type should be \[str\]"),
    (lambda a: a.__setitem__(7, [0, 1.5]), r"parameter\[axes\]'s type should be \[int\]"),
    (lambda a: a.__setitem__(7, 3), r"parameter\[axes\]'s type should be \[list tuple\]"),
    (lambda a: a.__setitem__(8, [1, 2]), r"parameter\[pads\]'s type should be \[list tuple\]"),
    (lambda a: a.__setitem__(9, "float7"), r"parameter\[dst_type\]'s dtype should be one of"),
    (lambda a: a.__setitem__(10, "bad-name"), r"kernel_name \[bad-name\] can only contain letters"),
    (lambda a: a.__setitem__(10, "k" * 201), r"kernel_name len must be less than 200"),
])
def test_check_op_params_rejects(tensor_dict, change, message):
    args = [tensor_dict([2, 3]), None, tensor_dict([2, 3]), 3, 0.5, True, "b", [0], [[1]], "float16", "k"]
    change(args)
    with pytest.raises(TbeArgumentError, match=message) as info:
        make_op()(*args)
    assert isinstance(info.value, RuntimeError)


def test_check_op_params_checks_keyword_arguments_and_counts(tensor_dict):
    my_op = make_op()
    x = tensor_dict([4])
    with pytest.raises(TbeArgumentError, match=r"parameter\[scale\]'s type should be \[float\]"):
        my_op(x, None, x, 3, scale=2)
    with pytest.raises(TbeArgumentError, match=r"kernel_name \[1x\]"):
        my_op(x, None, x, 3, 0.5, kernel_name="1x")
    with pytest.raises(TbeArgumentError, match="declares 11 parameter type"):
        make_op()(*([x, None, x, 3, 0.5, True, "b", [0], [[1]], "float16", "k", "extra"]))
    pc = para_check()

    @pc.check_op_params(pc.DYNAMIC_INPUT, pc.REQUIRED_OUTPUT, "NOT_A_KIND")
    def concat(xs, y, axis):
        return len(xs)
    with pytest.raises(TbeArgumentError, match=r"unknown parameter type 'NOT_A_KIND'"):
        concat([x, x], x, 1)
    with pytest.raises(TbeArgumentError, match=r"mandatory parameter\[xs\] is missed"):
        concat([], x, 1)
    with pytest.raises(TbeArgumentError, match=r"\[xs\]'s type should be \[list tuple\]"):
        concat(x, x, 1)


def test_check_op_params_keeps_the_signature(tensor_dict):
    import inspect
    my_op = make_op()
    assert my_op.__name__ == "my_op" and "kernel_name" in inspect.signature(my_op).parameters


def test_pinned_unknown_dims_pass(tensor_dict):
    my_op = make_op()
    x = dict(tensor_dict([2, 3]), shape=[-1, 3], range=[(2, 2), (3, 3)])
    assert my_op(x, None, tensor_dict([2, 3]), 1, 1.0) == "built"


@pytest.mark.parametrize("call,message", [
    (lambda pc: pc.check_shape((2, 3), max_rank=1, param_name="x"), r"dimensions of input\[x\] should be in the range"),
    (lambda pc: pc.check_shape([0, 3], min_dim=1), r"dim value of input\[\] should be in the range of \[1, "),
    (lambda pc: pc.check_shape([2 ** 16, 2 ** 16]), r"shape size\(product of all dimensions\)"),
    (lambda pc: pc.check_shape("23"), r"type should be \[list tuple\]"),
    (lambda pc: pc.check_shape([2, -3]), "npusim compiles each op per concrete shape"),  # -1 is a dynamic dim
    (lambda pc: pc.check_dtype("int64", ("float16", "float32"), param_name="x"),
     r"parameter\[x\]'s dtype should be one of \[float16,float32\], but actually is \[int64\]"),
    (lambda pc: pc.check_dtype(None), "dtype could not be none"),
    (lambda pc: pc.check_format("NZ", ("ND",), param_name="y"), r"format of input\[y\] should be one of \[ND\]"),
    (lambda pc: pc.check_format(None), "format could not be none"),
    (lambda pc: pc.check_kernel_name(3), "kernel name must be string type"),
    (lambda pc: pc.check_kernel_name("a.b"), "can only contain letters, numbers and underscores"),
    (lambda pc: pc.check_elewise_shape_range([{"shape": [2, 3]}, {"shape": [2, 1]}]), "do not match at axis 1"),
    (lambda pc: pc.check_elewise_shape_range([{"shape": [2, 3]}, {"shape": [4, 3]}], True), "do not match at axis 0"),
])
def test_plain_checks_raise(call, message):
    with pytest.raises(TbeArgumentError, match=message):
        call(para_check())


def test_plain_checks_pass():
    pc = para_check()
    pc.check_shape([2, 3, 4], param_name="x")
    pc.check_shape([])
    pc.check_dtype("Float16", ("float16",))
    pc.check_format("NC1HWC0")
    pc.check_kernel_name("_Add_2")
    pc.check_kernel_name("k" * 200)
    pc.check_elewise_shape_range([{"shape": [2, 3]}, {"shape": [1, 3]}], support_broadcast=True)
    assert pc.is_scalar([1]) and not pc.is_scalar([1, 1]) and not pc.is_scalar((2,))


def test_topi_util_checks():
    from topi.cce import util
    util.check_kernel_name(None)
    util.check_shape_rule([2, 3])
    util.check_dtype_rule("FLOAT16", ("float16",))
    assert util.check_tensor_shape_size([4, 5]) == 20
    assert util.check_shape_size([4, 5], 20) == 20
    util.check_reduce_shape_rule([10, 10])
    for call, message in [
        (lambda: util.check_kernel_name("k" * 201), "len must be less than 200"),
        (lambda: util.check_kernel_name("9lives"), "begin with underscores or letters"),
        (lambda: util.check_shape_rule([2, 0]), "positive int"),
        (lambda: util.check_shape_rule([2, True]), "positive int"),
        (lambda: util.check_shape_rule([1] * 9), r"ndim of input must be in \[1, 8\]"),
        (lambda: util.check_shape_rule(5), "must be a tuple or list"),
        (lambda: util.check_dtype_rule("int8", ("float16",), "x"), r"data type \[int8\] of \[x\] is not supported"),
        (lambda: util.check_dtype_rule(None, ("float16",)), "is None"),
        (lambda: util.check_shape_size([4, 5], 10), "too large"),
        (lambda: util.check_tensor_shape_size([2 ** 16, 2 ** 16]), "too large"),
        (lambda: util.check_reduce_shape_rule([20000, 20000]), "less than 200000000"),
        (lambda: util.compare_tensor_dict_key({"dtype": "a"}, {"dtype": "B"}, "dtype"), "not equal in \\[dtype\\]"),
        (lambda: util.compare_tensor_dict_key({"dtype": "a"}, {}, "dtype"), "input dict2 has no value"),
    ]:
        with pytest.raises(TbeArgumentError, match=message):
            call()
    util.compare_tensor_dict_key({"shape": (2, 3)}, {"shape": [2, 3]}, "shape")
    util.compare_tensor_dict_key({"dtype": "FLOAT16"}, {"dtype": "float16"}, "dtype")


def test_topi_check_input_type_decorator(tensor_dict):
    from topi.cce import util

    @util.check_input_type(dict, dict, (int, float), str)
    def leaky_relu(x, y, negative_slope=0, kernel_name="leaky_relu"):
        return negative_slope

    x = tensor_dict([4])
    assert leaky_relu(x, x, 0.2, "k") == 0.2
    assert leaky_relu(x, x, negative_slope=1) == 1
    with pytest.raises(TbeArgumentError, match=r"\[negative_slope\] should be"):
        leaky_relu(x, x, "0.2")
    with pytest.raises(TbeArgumentError, match=r"\[kernel_name\] should be"):
        leaky_relu(x, x, 0.2, kernel_name=5)
    with pytest.raises(TbeArgumentError, match=r"shape must be a list or tuple"):
        leaky_relu(dict(x, shape="4"), x, 0.2)


def test_error_manager_raisers():
    from impl.util.platform_adapter import error_manager_vector
    from te.utils.error_manager import error_manager_util
    with pytest.raises(TbeArgumentError, match=r"In op\[add\], the parameter\[x\]'s dtype should be one of"):
        error_manager_vector.raise_err_input_dtype_not_supported("add", "x", "float16", "int8")
    with pytest.raises(TbeArgumentError, match=r"In op\[add\], shapes differ"):
        error_manager_vector.raise_err_specific_reson("add", "shapes differ")
    with pytest.raises(TbeArgumentError, match=r"In op\[mul\], something odd happened: 1, 'b'"):
        error_manager_vector.raise_err_something_odd_happened("mul", 1, "b")
    with pytest.raises(TbeArgumentError, match="E80000 bad axis"):
        error_manager_util.raise_runtime_error({"errCode": "E80000", "detailed_cause": "bad axis"})
    with pytest.raises(AttributeError):
        error_manager_vector.not_a_raiser  # noqa: B018
