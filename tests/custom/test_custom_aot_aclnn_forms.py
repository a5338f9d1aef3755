"""ops.Custom(func_type="aot") on Ascend naming aclnn operators: every func form, GRAPH and PYNATIVE mode, bprop
(in the style of MindSpore's tests/st/graph_kernel/custom/custom_ascendc)."""
import warnings

import numpy as np
import pytest

import mindspore as ms
import mindspore.ops as ops
from mindspore import Tensor, context
from mindspore.nn import Cell
from mindspore.ops import CustomRegOp, DataType
from mindspore.ops import operations as P
from npusim.custom.backends.aot import AotBackend
from npusim.custom.backends.aot_aclnn import AclnnAotBackend

from aclnn_custom_support import infer_file  # noqa: F401  (fixture)

MODES = [ms.GRAPH_MODE, ms.PYNATIVE_MODE]


@pytest.fixture(autouse=True)
def ascend():
    context.set_context(device_target="Ascend", jit_config={"jit_level": "O0"})


def mul_reg_info(name="aclnnMul"):
    return CustomRegOp(name).input(0, "x", "required").input(1, "y", "required").output(0, "z", "required") \
        .dtype_format(DataType.F16_Default, DataType.F16_Default, DataType.F16_Default).target("Ascend").get_op_info()


class MulNet(Cell):
    """(x + y) * y - z with the product made by the Custom op (MindSpore's test_custom_mul_aclnn)."""

    def __init__(self, func, out_shape, out_dtype, bprop=None, reg_info=None):
        super().__init__()
        self.custom_mul = ops.Custom(func, out_shape, out_dtype, func_type="aot", bprop=bprop, reg_info=reg_info)
        self.add = P.Add()
        self.sub = P.Sub()

    def construct(self, x, y, z):
        return self.sub(self.custom_mul(self.add(x, y), y), z)


class BaseNet(Cell):
    def __init__(self):
        super().__init__()
        self.add, self.mul, self.sub = P.Add(), P.Mul(), P.Sub()

    def construct(self, x, y, z):
        return self.sub(self.mul(self.add(x, y), y), z)


def mul_bprop(x, y, out, dout):
    return dout * y, dout * x


def inputs(dtype=np.float16, shape=(8, 64)):
    rng = np.random.default_rng(7)
    return [rng.random(shape).astype(dtype) + 0.5 for _ in range(3)]


def infer_funcs(path):
    return {"aclnnMul": ("aclnnMul", lambda x, _: x, lambda x, _: x),
            "Mul": ("Mul", lambda x, _: x, lambda x, _: x),
            "infer.cc:aclnnMul": (f"{path}:aclnnMul", None, None),
            "infer.cc:Mul": (f"{path}:Mul", None, None)}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("form", ["aclnnMul", "Mul", "infer.cc:aclnnMul", "infer.cc:Mul"])
def test_each_func_form_runs_the_operator(mode, form, infer_file):
    context.set_context(mode=mode)
    func, out_shape, out_dtype = infer_funcs(infer_file)[form]
    x, y, z = inputs()
    net = MulNet(func, out_shape, out_dtype, reg_info=mul_reg_info())
    assert isinstance(net.custom_mul.backend, AclnnAotBackend) and net.custom_mul.backend.api == "aclnnMul"
    out = net(Tensor(x), Tensor(y), Tensor(z))
    assert out.dtype == ms.float16 and out.shape == x.shape
    np.testing.assert_allclose(out.asnumpy(), ((x + y) * y - z).astype(np.float16), rtol=2e-3, atol=2e-3)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("form", ["aclnnMul", "Mul", "infer.cc:aclnnMul", "infer.cc:Mul"])
def test_bprop_of_each_form_matches_builtin_ops(mode, form, infer_file):
    context.set_context(mode=mode)
    func, out_shape, out_dtype = infer_funcs(infer_file)[form]
    x, y, z = [Tensor(a) for a in inputs(np.float32, (4, 5))]
    grads = ops.GradOperation(get_all=True)(MulNet(func, out_shape, out_dtype, bprop=mul_bprop))(x, y, z)
    expected = ops.GradOperation(get_all=True)(BaseNet())(x, y, z)
    assert len(grads) == 3
    for got, want in zip(grads, expected):
        np.testing.assert_allclose(got.asnumpy(), want.asnumpy(), rtol=1e-5)


@pytest.mark.parametrize("mode", MODES)
def test_add_with_alpha_attribute_from_reg_info(mode):
    """MindSpore's test_custom_add: aclnnAdd's aclScalar alpha comes from an "int" reg-info attribute."""
    context.set_context(mode=mode)
    reg = CustomRegOp("aclnnAdd").input(0, "self", "required").input(1, "other", "required") \
        .attr("alpha", "required", "int").output(0, "out", "required") \
        .dtype_format(DataType.F16_Default, DataType.F16_Default, DataType.F16_Default).target("Ascend").get_op_info()
    add = ops.Custom("aclnnAdd", lambda s, o, a: s, lambda s, o, a: s, func_type="aot", reg_info=reg)
    x, y, _ = inputs(np.float32, (2, 3, 4))
    np.testing.assert_allclose(add(Tensor(x), Tensor(y), 1).asnumpy(), x + y, rtol=1e-6)
    np.testing.assert_allclose(add(Tensor(x), Tensor(y), 3).asnumpy(), x + 3 * y, rtol=1e-6)


def test_the_dtype_format_rows_do_not_select_the_kernel():
    """As on MindSpore, an F16-only reg info does not stop float32 inputs: the aclnn operator decides."""
    x, y, _ = inputs(np.float32, (3, 3))
    mul = ops.Custom("aclnnMul", lambda a, _: a, lambda a, _: a, func_type="aot", reg_info=mul_reg_info())
    out = mul(Tensor(x), Tensor(y))
    assert out.dtype == ms.float32
    np.testing.assert_allclose(out.asnumpy(), x * y, rtol=1e-6)


@pytest.mark.parametrize("mode", MODES)
def test_aclop_names_map_to_the_aclnn_operator_of_the_same_computation(mode):
    """The aclop form: GE's RealDiv is aclnnDiv; AddCustom, CANN's sample that MindSpore's test_custom_aclop builds,
    is aclnnAdd with alpha 1 (the aclop has no alpha): add, Custom, sub in one net."""
    context.set_context(mode=mode)
    x, y, z = inputs(np.float16, (8, 32))
    div = ops.Custom("RealDiv", lambda a, _: a, lambda a, _: a, func_type="aot")
    np.testing.assert_allclose(div(Tensor(x), Tensor(y)).asnumpy(), x / y, rtol=2e-3)
    with pytest.warns(UserWarning, match="sample operator"):
        net = MulNet("AddCustom", lambda a, _: a, lambda a, _: a, reg_info=mul_reg_info("AddCustom"))
    assert net.custom_mul.backend.api == "aclnnAdd"
    out = net(Tensor(x), Tensor(y), Tensor(z))
    np.testing.assert_allclose(out.asnumpy(), (x + y + y - z).astype(np.float16), rtol=3e-3, atol=3e-3)


def test_aclnn_names_stay_host_kernels_on_cpu_and_host_kernels_stay_on_ascend(tmp_path):
    """Dispatch: only Ascend ops naming an operator go to the aclnn backend; a 'file:function' whose function is
    no operator is a host aot kernel on Ascend too, and CPU aot never changes."""
    context.set_context(device_target="CPU")
    with pytest.raises(TypeError, match="file_name:func_name"):
        ops.Custom("aclnnMul", lambda a, _: a, lambda a, _: a, func_type="aot")
    source = tmp_path / "kernel.cc"
    source.write_text('extern "C" int Twice(int n, void **p, int *nd, long **sh, const char **dt, void *s, '
                      'void *e) { float *x = (float *)p[0], *y = (float *)p[1]; for (int i = 0; i < 4; i++) '
                      'y[i] = 2 * x[i]; return 0; }\n')
    context.set_context(device_target="Ascend")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("NPUSIM_CACHE_DIR", str(tmp_path / "cache"))
        op = ops.Custom(f"{source}:Twice", lambda a: a, lambda a: a, func_type="aot")
        assert type(op.backend) is AotBackend
        np.testing.assert_array_equal(op(Tensor(np.arange(4, dtype=np.float32))).asnumpy(), [0, 2, 4, 6])


def test_operator_runs_on_the_simulated_device_and_reads_inputs_in_place():
    from npusim.sim import profile
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    neg = ops.Custom("aclnnNeg", lambda a: a, lambda a: a, func_type="aot")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no sample-operator warning for a plain aclnn name
        with profile() as prof:
            out = neg(Tensor(x))
    np.testing.assert_array_equal(out.asnumpy(), -x)
    np.testing.assert_array_equal(x, np.arange(6, dtype=np.float32).reshape(2, 3))
    assert prof.rows() and all(row["cycles"] > 0 for row in prof.rows())
