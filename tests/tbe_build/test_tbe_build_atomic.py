"""Atomic-clean outputs and workspaces: kernel_meta's "parameters" flags, launches that honour them, and a Custom
tbe reduce over every axis that splits over the cores."""
import json

import numpy as np
import pytest

from mindspore import Tensor, ops
from mindspore.ops import CustomRegOp, DataType
from npusim.errors import TbeLaunchError
from npusim.sim import KernelBuilder, default_device, profile
from te_compat.build import ArgSpec, kernel_meta_dir, kernel_text, load_built
from te_compat.build.kernel_meta import write_kernel_files

RNG = np.random.default_rng(31)


@pytest.fixture
def compat():
    """The compat layer serving te / tbe while a test builds in the TBE style (restored afterwards)."""
    from npusim.compat import aliases
    was_installed = aliases.installed()
    aliases.install()
    yield
    if not was_installed:
        aliases.uninstall()


def _build_sum(shape, dtype, name, cast_back=False):
    import te.lang.cce
    from te import tvm
    data = tvm.placeholder(shape, name="data", dtype=dtype)
    x = te.lang.cce.cast_to(data, "float32") if cast_back else data
    res = te.lang.cce.sum(x, axis=list(range(len(shape))))
    if cast_back:
        res = te.lang.cce.cast_to(res, dtype)
    with tvm.target.cce():
        sch = te.lang.cce.auto_schedule(res)
    te.lang.cce.cce_build_code(sch, {"name": name, "tensor_list": [data, res]})
    return json.loads((kernel_meta_dir() / f"{name}.json").read_text())


def test_reduce_all_json_marks_the_output_atomic_clean_and_runs_split(compat):
    meta = _build_sum((1024, 1000), "float32", "sum_all")
    assert meta["parameters"] == [0, 1] and meta["blockDim"] > 1 and "workspace" not in meta
    built = load_built("sum_all")
    x = RNG.standard_normal((1024, 1000)).astype(np.float32)
    for _ in range(2):                      # each launch zeroes the output first
        (out,) = built.run(x)
        np.testing.assert_allclose(out, [x.astype(np.float64).sum()], rtol=1e-5, atol=1e-3)


def test_two_stage_json_marks_its_workspaces(compat):
    meta = _build_sum((1024, 1000), "float16", "sum_d16", cast_back=True)
    assert meta["parameters"] == [0, 0, 1, 1] and meta["blockDim"] > 1
    assert meta["workspace"]["num"] == 2 and meta["workspace"]["size"] == [32, 32]
    x = RNG.standard_normal((1024, 1000)).astype(np.float16)
    (out,) = load_built("sum_d16").run(x)
    assert out.dtype == np.float16
    np.testing.assert_allclose(out.astype(np.float64), [x.astype(np.float64).sum()], rtol=2e-3, atol=1.0)


def test_small_reduce_json_has_no_atomic_flags(compat):
    meta = _build_sum((64, 16), "float32", "sum_small")
    assert meta["parameters"] == [0, 0] and meta["blockDim"] == 1


def _write(kernel, args, name):
    write_kernel_files(kernel_meta_dir(), name, kernel, args, "Ascend910", "hand")
    return kernel_meta_dir() / f"{name}.json"


def test_launch_zeroes_only_the_flagged_outputs():
    kb = KernelBuilder("untouched")
    x = kb.tensor("float32", (8,), "GM", "x")
    plain = kb.tensor("float32", (8,), "GM", "plain")
    clean = kb.tensor("float32", (8,), "GM", "clean", atomic_clean=True)
    kernel = kb.build(inputs=[x], outputs=[plain, clean])       # writes nothing: outputs keep their start
    args = (ArgSpec("x", (8,), "float32"), ArgSpec("plain", (8,), "float32", output=True),
            ArgSpec("clean", (8,), "float32", output=True))
    path = _write(kernel, args, "untouched")
    assert json.loads(path.read_text())["parameters"] == [0, 0, 1]
    listing = kernel_text(kernel).splitlines()
    assert [line.endswith("atomic_clean") for line in listing[2:5]] == [False, False, True]
    out_plain, out_clean = load_built(path).run(np.ones(8, np.float32))
    assert np.all(out_plain.view(np.uint8) == default_device().fill_byte)
    assert np.all(out_clean == 0)


def test_parameters_that_disagree_with_the_binary_are_rejected():
    kb = KernelBuilder("mismatch")
    x = kb.tensor("float32", (8,), "GM", "x")
    y = kb.tensor("float32", (8,), "GM", "y", atomic_clean=True)
    kernel = kb.build(inputs=[x], outputs=[y])
    path = _write(kernel, (ArgSpec("x", (8,), "float32"), ArgSpec("y", (8,), "float32", output=True)), "mismatch")
    meta = json.loads(path.read_text())
    meta["parameters"] = [0, 0]
    path.write_text(json.dumps(meta))
    with pytest.raises(TbeLaunchError, match="disagree with the binary's atomic-clean parameters"):
        load_built(path)


def _reduce_all_impl(x, y, kernel_name="reduce_sum_all"):
    import te.lang.cce
    from te import tvm
    data = tvm.placeholder(x["shape"], name="data", dtype=x["dtype"].lower())
    res = te.lang.cce.sum(data, axis=list(range(len(x["shape"]))), keepdims=False)
    with tvm.target.cce():
        sch = te.lang.cce.auto_schedule(res)
    te.lang.cce.cce_build_code(sch, {"name": kernel_name, "tensor_list": [data, res]})


def test_custom_tbe_reduce_sum_over_all_axes_runs_on_every_core():
    reg = (CustomRegOp().input(0, "x").output(0, "y").dtype_format(DataType.F32_Default, DataType.F32_Default)
           .target("Ascend").get_op_info())
    op = ops.Custom(_reduce_all_impl, out_shape=lambda x: [1], out_dtype=lambda x: x, func_type="tbe",
                    reg_info=reg)
    x = RNG.standard_normal((512, 3000)).astype(np.float32)
    with profile() as prof:
        first = op(Tensor(x)).asnumpy()
        second = op(Tensor(x)).asnumpy()
    expected = x.astype(np.float64).sum()
    np.testing.assert_allclose(first, [expected], rtol=1e-5, atol=1e-3)
    np.testing.assert_array_equal(first, second)
    records = prof.records[-2:]
    assert all(r.block_dim == 32 for r in records)
    assert records[0].cost.total_cycles < x.nbytes / 42 / 8       # one core alone streams ~42 bytes per cycle
