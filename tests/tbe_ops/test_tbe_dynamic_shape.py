"""Issue 11 item 4: dynamic-shape ops (tbe.dsl with classify, -1 dims, range).

* A constant input (reduce ``axes``) reaches the impl with ``const_value`` / ``const_value_dtype`` as MindSpore
  passes it: for an input whose reg info declares ``value_depend`` (TbeJsonCreator::GenInputConstValue).
* An op entry called with ``-1`` dims (a dynamic kernel, as CANN's compiler calls it) is accepted: npusim records
  the call and builds it for the concrete shapes it is launched with.
"""
import importlib
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from mindspore import Tensor, context, ops
from mindspore.ops import CustomRegOp, DataType, TBERegOp

from npusim.errors import TbeBuildError

pytestmark = pytest.mark.filterwarnings("error::te_compat.fallback.ScalarPipeWarning")
HERE = Path(__file__).resolve().parent


@pytest.fixture(autouse=True)
def _ascend():
    context.set_context(device_target="Ascend")


def impl(module, func):
    return getattr(importlib.import_module(module), func)


def _out_shape(x, axes, keep_dims):
    return [x[0], 1] if keep_dims else [x[0]]


REDUCE_SUM_INFO = TBERegOp("ReduceSum") \
    .fusion_type("OPAQUE") \
    .dynamic_shape(True) \
    .attr("keep_dims", "optional", "bool", "all", "false") \
    .input(0, "x", False, "required", "all") \
    .input(1, "axes", False, "required", "all", "required") \
    .output(0, "y", False, "required", "all") \
    .dtype_format(DataType.F16_Default, DataType.I32_Default, DataType.F16_Default) \
    .dtype_format(DataType.F32_Default, DataType.I32_Default, DataType.F32_Default) \
    .get_op_info()


def test_reduce_sum_axes_input_arrives_as_const_value():
    op = ops.Custom(impl("impl_reduce_sum_dyn", "reduce_sum"), out_shape=_out_shape, out_dtype=lambda x, a, k: x,
                    func_type="tbe", reg_info=REDUCE_SUM_INFO)
    x = np.arange(48, dtype=np.float32).reshape(6, 8)
    for axes, keep in (([1], False), ([-1], True)):
        out = op(Tensor(x), Tensor(np.array(axes, np.int32)), keep).asnumpy()
        np.testing.assert_allclose(out, x.sum(axis=1, keepdims=keep), rtol=1e-6)
    assert op.backend.impl_calls == 2  # a new constant value is a new kernel


def test_the_const_input_dict_is_mindspores():
    seen = []

    def spy(x, axes, y, keep_dims=False, kernel_name="reduce_sum"):
        seen.append(dict(axes))
        impl("impl_reduce_sum_dyn", "reduce_sum")(x, axes, y, keep_dims, kernel_name=kernel_name)

    info = CustomRegOp() \
        .input(0, "x") \
        .input(1, "axes", value_depend="required") \
        .output(0, "y") \
        .attr("keep_dims", "required", "bool") \
        .dtype_format(DataType.F16_Default, DataType.I32_Default, DataType.F16_Default) \
        .target("Ascend") \
        .get_op_info()
    op = ops.Custom(spy, out_shape=_out_shape, out_dtype=lambda x, a, k: x, func_type="tbe", reg_info=info)
    x = np.linspace(-1, 1, 5 * 32, dtype=np.float16).reshape(5, 32)
    out = op(Tensor(x), Tensor(np.array([1], np.int32)), False).asnumpy()
    np.testing.assert_allclose(out, x.astype(np.float32).sum(axis=1).astype(np.float16), rtol=2e-3, atol=2e-3)
    (axes,) = seen
    assert axes["const_value"] == [1] and axes["const_value_dtype"] == "int32" and axes["shape"] == [1]


def test_without_value_depend_the_error_says_how_to_mark_the_input():
    info = CustomRegOp().input(0, "x").input(1, "axes").output(0, "y").attr("keep_dims", "required", "bool") \
        .dtype_format(DataType.F32_Default, DataType.I32_Default, DataType.F32_Default) \
        .target("Ascend").get_op_info()
    op = ops.Custom(impl("impl_reduce_sum_dyn", "reduce_sum"), out_shape=_out_shape, out_dtype=lambda x, a, k: x,
                    func_type="tbe", reg_info=info)
    with pytest.raises(TbeBuildError, match="value_depend"):
        op(Tensor(np.ones((2, 8), np.float32)), Tensor(np.array([1], np.int32)), False)


def _dynamic(shape, dtype):
    return {"shape": list(shape), "dtype": dtype, "format": "ND", "ori_shape": list(shape), "ori_format": "ND",
            "range": [(1, None) if d == -1 else (d, d) for d in shape]}


def test_an_entry_called_with_unknown_dims_is_built_per_shape_at_launch(tmp_path, monkeypatch):
    from te_compat.build import load_built
    monkeypatch.chdir(tmp_path)
    relu6 = impl("impl_relu6_dyn", "relu6")
    assert relu6(_dynamic([-1, -1], "int32"), _dynamic([-1, -1], "int32"), kernel_name="relu6_dyn") is None
    meta = json.loads((tmp_path / "kernel_meta" / "relu6_dyn.json").read_text())
    assert meta["npusim"]["deferred"]["op_type"] == "Relu6"
    kernel = load_built("relu6_dyn")
    for shape in ((3, 17), (40, 300)):
        x = (np.arange(np.prod(shape), dtype=np.int32).reshape(shape) % 23) - 9
        (out,) = kernel.run(x)
        np.testing.assert_array_equal(out.reshape(shape), np.clip(x, 0, 6))


def test_a_deferred_kernel_launches_in_a_new_process(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    impl("impl_relu6_dyn", "relu6")(_dynamic([-1], "float16"), _dynamic([-1], "float16"), kernel_name="r6_f16")
    script = (f"import sys; sys.path.insert(0, {str(HERE)!r})\n"
              "import numpy as np, npusim.compat\n"
              "from te_compat.build import load_built\n"
              "x = np.linspace(-4, 10, 77).astype(np.float16)\n"
              "(out,) = load_built('kernel_meta/r6_f16.json').run(x)\n"
              "print(bool(np.array_equal(out, np.clip(x, 0, 6))))\n")
    env = dict(os.environ, NPUSIM_CACHE_DIR=str(tmp_path / "cache"))
    done = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "True"


def test_check_op_params_accepts_unknown_dims_as_cann_does():
    from te.utils import para_check
    para_check.check_shape([-1, 16], param_name="x")
    para_check.check_shape([-2], param_name="x")
    with pytest.raises(RuntimeError, match="num of dimensions"):
        para_check.check_shape([-1] * 9, param_name="x")
