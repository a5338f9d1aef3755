"""User primitives (``PrimitiveWithInfer``) running the TBE implementation registered with ``op_info_register``,
as in MindSpore's classic custom-operator tutorial (a primitive module, an impl module, a test script)."""
import importlib
import sys
import textwrap

import numpy as np
import pytest

from npusim.compat import aliases

IMPL = '''
import te.lang.cce
from te import tvm
from te.platform.fusion_manager import fusion_manager
from topi import generic
from topi.cce import util
from mindspore.ops.op_info_register import op_info_register, TBERegOp, DataType

@fusion_manager.register("{name}")
def {name}_compute(x1, x2, bias):
    return te.lang.cce.vadds(te.lang.cce.vmul(x1, x2), tvm.const(bias, dtype=x1.dtype))

info = TBERegOp("{prim}").fusion_type("OPAQUE").async_flag(False).binfile_name("{name}.so").compute_cost(10) \\
    .kernel_name("{prim}Impl").partial_flag(True).attr("bias", "required", "float", "all") \\
    .input(0, "x1", False, "required", "all").input(1, "x2", False, "required", "all") \\
    .output(0, "y", False, "required", "all") \\
    .dtype_format(DataType.F32_Default, DataType.F32_Default, DataType.F32_Default) \\
    .dtype_format(DataType.F16_Default, DataType.F16_Default, DataType.F16_Default).get_op_info()

@op_info_register(info)
def {prim}Impl(x1, x2, y, bias, kernel_name="{prim}Impl"):
    shape = util.shape_refine(x1.get("shape"))
    dtype = x1.get("dtype").lower()
    a = tvm.placeholder(shape, name="a", dtype=dtype)
    b = tvm.placeholder(shape, name="b", dtype=dtype)
    with tvm.target.cce():
        res = {name}_compute(a, b, bias)
        sch = generic.auto_schedule(res)
    te.lang.cce.cce_build_code(sch, {{"print_ir": False, "name": kernel_name, "tensor_list": [a, b, res]}})
'''

PRIM = '''
from mindspore.ops import prim_attr_register, PrimitiveWithInfer
import mindspore.ops as ops

class {prim}(PrimitiveWithInfer):
    @prim_attr_register
    def __init__(self, bias=0.5):
        self.init_prim_io_names(inputs=["x1", "x2"], outputs=["y"])
        from {name}_impl import {prim}Impl

    def infer_shape(self, s1, s2):
        return s1

    def infer_dtype(self, d1, d2):
        return d1

    def get_bprop(self):
        def bprop(x1, x2, out, dout):
            return ops.Mul()(x2, dout), ops.Mul()(x1, dout)
        return bprop
'''


@pytest.fixture
def load(tmp_path, monkeypatch):
    """Write the impl and primitive modules for ``name`` and import the primitive class."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("NPUSIM_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.syspath_prepend(str(tmp_path))
    was_installed = aliases.installed()
    aliases.install()
    loaded = []

    def make(name, prim, impl=IMPL, primitive=PRIM):
        (tmp_path / f"{name}_impl.py").write_text(textwrap.dedent(impl.format(name=name, prim=prim)))
        (tmp_path / f"cus_{name}.py").write_text(textwrap.dedent(primitive.format(name=name, prim=prim)))
        loaded.extend([f"{name}_impl", f"cus_{name}"])
        return getattr(importlib.import_module(f"cus_{name}"), prim)
    yield make
    for module in loaded:
        sys.modules.pop(module, None)
    if not was_installed:
        aliases.uninstall()


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_primitive_runs_its_registered_tbe_impl_with_its_attribute(load, dtype):
    import mindspore as ms
    ms.set_context(device_target="Ascend")
    MulBias = load("mulbias", "CusMulBias")
    x1 = np.linspace(-3, 3, 1000, dtype=dtype).reshape(10, 100)
    x2 = np.linspace(1, 2, 1000, dtype=dtype).reshape(10, 100)
    out = MulBias(1.5)(ms.Tensor(x1), ms.Tensor(x2)).asnumpy()
    assert out.dtype == dtype
    np.testing.assert_allclose(out, x1 * x2 + dtype(1.5), rtol=1e-3 if dtype == np.float16 else 1e-6)
    default = MulBias()(ms.Tensor(x1), ms.Tensor(x2)).asnumpy()  # bias from __init__'s default value
    np.testing.assert_allclose(default, x1 * x2 + dtype(0.5), rtol=1e-3 if dtype == np.float16 else 1e-6)


def test_primitive_gradient_comes_from_get_bprop(load):
    import mindspore as ms
    from mindspore import ops
    MulBias = load("mulgrad", "CusMulGrad")
    x1, x2 = np.array([1.0, 2.0, 3.0], np.float32), np.array([4.0, 5.0, 6.0], np.float32)
    sens = np.array([1.0, 10.0, 100.0], np.float32)
    g1, g2 = ops.GradOperation(get_all=True, sens_param=True)(MulBias(2.0))(ms.Tensor(x1), ms.Tensor(x2),
                                                                            ms.Tensor(sens))
    np.testing.assert_array_equal(g1.asnumpy(), x2 * sens)
    np.testing.assert_array_equal(g2.asnumpy(), x1 * sens)


def test_bprop_getters_registry_is_used(load):
    import mindspore as ms
    from mindspore import ops
    from mindspore.ops._grad.grad_base import bprop_getters
    MulBias = load("mulreg", "CusMulReg", primitive=PRIM.replace("def get_bprop", "def _unused"))

    @bprop_getters.register(MulBias)
    def get_bprop(self):
        def bprop(x1, x2, out, dout):
            return 3 * dout, 4 * dout
        return bprop
    x = ms.Tensor(np.ones(4, np.float32))
    g1, g2 = ops.GradOperation(get_all=True)(MulBias())(x, x)
    assert g1.asnumpy().tolist() == [3.0] * 4 and g2.asnumpy().tolist() == [4.0] * 4


def test_op_info_register_is_the_decorator_under_both_import_paths(load):
    load("mulimp", "CusMulImp")()  # the primitive's __init__ imports the impl module, which registers it
    from mindspore.ops import op_info_register as from_ops
    from mindspore.ops.op_info_register import op_info_register as from_module
    assert from_ops is from_module and callable(from_ops)
    from npusim.custom import op_lib
    entry = op_lib.find("CusMulImp")
    assert entry.imply_type == "TBE" and entry.func_type == "tbe" and entry.impl_path.endswith("mulimp_impl.py")


def test_primitive_without_registered_impl_or_required_attr_fails_clearly(load):
    import mindspore as ms
    from mindspore.ops import PrimitiveWithInfer, prim_attr_register
    from npusim.errors import OpValueError, UnsupportedError

    class Unregistered(PrimitiveWithInfer):
        @prim_attr_register
        def __init__(self):
            pass
    with pytest.raises(UnsupportedError, match="Primitive 'Unregistered': no implementation is registered"):
        Unregistered()(ms.Tensor(np.ones(2, np.float32)))

    MulBias = load("mulnoattr", "CusMulNoAttr", primitive=PRIM.replace("bias=0.5", "scale=0.5"))
    x = ms.Tensor(np.ones(2, np.float32))
    with pytest.raises(OpValueError, match="requires the attribute 'bias'"):
        MulBias()(x, x)


def test_attrs_fixed_by_the_op_info_take_no_call_argument():
    """An AiCPU op info attr with ``value=`` is fixed: the primitive's other attrs must not shift onto it."""
    from npusim.custom.attrs import bind_attrs
    from npusim.custom.op_lib import RegisteredOp
    from npusim.custom.primitive_kernel import _attr_values

    info = {"op_name": "CusScale", "imply_type": "AiCPU",
            "attr": [{"name": "cust_aicpu", "type": "str", "value": "scale_kernels"},
                     {"name": "alpha", "type": "float", "param_type": "required"}]}
    entry = RegisteredOp("CusScale", info, print, "")

    class Prim:
        name = "CusScale"
        attrs = {"cust_aicpu": "scale_kernels", "alpha": 2}

    bound = bind_attrs("CusScale", info, _attr_values(Prim(), entry), entry.func_type)
    assert bound.names == ("cust_aicpu", "alpha")
    assert bound.values == ("scale_kernels", 2.0)
