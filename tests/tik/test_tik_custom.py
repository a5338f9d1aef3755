"""A TIK impl (BuildCCE instead of cce_build_code) through ops.Custom(func_type="tbe"), its kernel_meta files, the
build cache and the profile."""
import json

import numpy as np
import pytest
from tik_kernels import reg_info, int8_dequant_kernel, soc_core_num, vadd_kernel

from mindspore import Tensor, ops
from mindspore.ops import DataType, custom_info_register
from npusim.sim import profile
from te_compat.build import load_built


_reg = reg_info


F16, I8, U8 = DataType.F16_Default, DataType.I8_Default, DataType.U8_Default
CALLS = []


@custom_info_register(_reg(["x", "y"], ["z"], (F16, F16, F16)))
def tik_vadd_impl(x, y, z, kernel_name="tik_vadd_impl"):
    """The op impl: dicts in, a TIK kernel built with BuildCCE."""
    CALLS.append(kernel_name)
    total = 1
    for dim in x["shape"]:
        total *= dim
    vadd_kernel(total, kernel_name=kernel_name)


@custom_info_register(_reg(["x"], ["h", "q"], (I8, F16, U8)))
def tik_dequant_impl(x, h, q, kernel_name="tik_dequant_impl"):
    int8_dequant_kernel(x["shape"][0], kernel_name=kernel_name)


def test_tik_impl_runs_through_custom_and_is_cached(soc):
    CALLS.clear()
    op = ops.Custom(tik_vadd_impl, out_shape=lambda a, b: a, out_dtype=lambda a, b: a, func_type="tbe")
    shape = (soc_core_num() * 4, 1024 + 5)
    rng = np.random.default_rng(7)
    a = rng.standard_normal(shape).astype(np.float16)
    b = rng.standard_normal(shape).astype(np.float16)
    with profile() as session:
        out = op(Tensor(a), Tensor(b)).asnumpy()
        again = op(Tensor(b), Tensor(a)).asnumpy()
    np.testing.assert_array_equal(out, a + b)
    np.testing.assert_array_equal(again, b + a)
    assert len(CALLS) == 1                       # built once per signature
    rows = session.rows()                        # the TIK kernel shows in the profile, with a cycle estimate
    assert len(rows) == 2 and rows[0]["name"].startswith("tik_vadd_impl") and rows[0]["cycles"] > 0
    assert rows[0]["block_dim"] == soc_core_num()


def test_tik_impl_with_two_outputs_of_other_dtypes(soc):
    op = ops.Custom(tik_dequant_impl, out_shape=lambda a: (a, a), out_dtype=lambda a: ("float16", "uint8"),
                    func_type="tbe")
    x = np.arange(-128, 128).astype(np.int8).repeat(2)
    h, q = op(Tensor(x))
    np.testing.assert_array_equal(h.asnumpy(), x.astype(np.float16) * np.float16(0.5))
    np.testing.assert_array_equal(q.asnumpy(), np.rint(np.abs(x.astype(np.float64)) * 0.5).astype(np.uint8))


def test_buildcce_writes_kernel_meta_like_cce_build_code(tmp_path, soc):
    ti = vadd_kernel(soc_core_num() * 2048, kernel_name="tik_files")
    meta_path = tmp_path / "work" / "kernel_meta" / "tik_files.json"
    meta = json.loads(meta_path.read_text())
    assert meta["blockDim"] == soc_core_num() and meta["binFileSuffix"] == ".o"
    assert meta["npusim"]["classification"] == "tik" and meta["npusim"]["chip"] == soc
    assert [a["name"] for a in meta["npusim"]["args"]] == ["x", "y", "z"]
    assert (meta_path.parent / "tik_files.o").is_file()
    built = load_built("tik_files")                 # a relaunch from the files alone
    x = np.ones(soc_core_num() * 2048, np.float16)
    z, = built.run(x, x)
    np.testing.assert_array_equal(z, x + x)
    assert ti.built.json_path == meta_path


def test_output_files_path_and_a_bare_tensor_input(tmp_path):
    from tbe import tik
    ti = tik.Tik()
    x = ti.Tensor("float16", (16,), name="x", scope=tik.scope_gm)
    y = ti.Tensor("float16", (16,), name="y", scope=tik.scope_gm)
    u = ti.Tensor("float16", (16,), name="u", scope=tik.scope_ubuf)
    ti.data_move(u, x, 0, 1, 1, 0, 0)
    ti.data_move(y, u, 0, 1, 1, 0, 0)
    ti.BuildCCE(kernel_name="tik_copy", inputs=x, outputs=y, output_files_path=str(tmp_path / "out"),
                config={"double_buffer_non_reuse": True, "out_of_bound_sync_check": True}, enable_l2=True)
    assert (tmp_path / "out" / "kernel_meta" / "tik_copy.json").is_file()


def test_workspace_and_atomic_add_outputs():
    """Every core adds its partial into an is_atomic_add output (zeroed before the launch) through a workspace
    (Ascend910: Ascend310 has no atomic add, and says so at build time)."""
    from tbe import tik
    from tbe.common.platform import set_current_compile_soc_info
    from npusim.errors import TikDtypeError
    set_current_compile_soc_info("Ascend310")
    with pytest.raises(TikDtypeError, match="set_atomic_add doesn't support float32 on Ascend310"):
        tik.Tik().set_atomic_add(1)
    set_current_compile_soc_info("Ascend910")
    cores = 2
    ti = tik.Tik()
    x = ti.Tensor("float32", (cores * 64,), name="x", scope=tik.scope_gm)
    acc = ti.Tensor("float32", (64,), name="acc", scope=tik.scope_gm, is_atomic_add=True)
    ws = ti.Tensor("float32", (cores * 64,), name="ws", scope=tik.scope_gm, is_workspace=True)
    with ti.for_range(0, cores, block_num=cores) as core:
        u = ti.Tensor("float32", (64,), name="u", scope=tik.scope_ubuf)
        ti.data_move(u, x[core * 64], 0, 1, 8, 0, 0)
        ti.vec_muls(64, u, u, 2.0, 1, 8, 8)
        ti.data_move(ws[core * 64], u, 0, 1, 8, 0, 0)          # through the GM workspace
        ti.data_move(u, ws[core * 64], 0, 1, 8, 0, 0)
        ti.set_atomic_add(1)
        ti.data_move(acc, u, 0, 1, 8, 0, 0)
        ti.set_atomic_add(0)
    ti.BuildCCE("tik_atomic", [x], [acc])
    assert ti.built.meta["parameters"] == [0, 1, 0]
    x_np = np.arange(cores * 64, dtype=np.float32)
    built = load_built("tik_atomic")
    out, = built.run(x_np)
    np.testing.assert_array_equal(out, (x_np * 2).reshape(cores, 64).sum(axis=0))
