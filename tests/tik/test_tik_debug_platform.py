"""tikdb.start_debug feed checks, random initial outputs, the non-interactive prompt; the SoC queries kernels make."""
import io
import re
import sys

import numpy as np
import pytest
from tbe import tik

from npusim.errors import TikDebugError, TikInstructionUnsupportedError, TikSyntaxError
from te_compat.tik.missing import MISSING


def _copy_kernel(n=32, dtype="float16"):
    ti = tik.Tik()
    x = ti.Tensor(dtype, (n,), name="x", scope=tik.scope_gm)
    y = ti.Tensor(dtype, (n,), name="y", scope=tik.scope_gm)
    z = ti.Tensor(dtype, (n,), name="z", scope=tik.scope_gm)
    k = ti.InputScalar("int32", name="k")
    u = ti.Tensor(dtype, (n,), name="u", scope=tik.scope_ubuf)
    ti.data_move(u, x, 0, 1, n * np.dtype(dtype).itemsize // 32, 0, 0)
    ti.data_move(y, u, 0, 1, n * np.dtype(dtype).itemsize // 32, 0, 0)
    ti.BuildCCE("tik_copy_dbg", [x, k], [y, z])
    return ti


def test_feed_dict_keys_shapes_dtypes_and_scalar_values_are_checked():
    ti = _copy_kernel()
    x = np.zeros(32, np.float16)
    with pytest.raises(TikDebugError, match=re.escape("BuildCCE input list is ['k', 'x'], but feed_dict list is "
                                                      "['x']")):
        ti.tikdb.start_debug({"x": x}, interactive=False)
    with pytest.raises(TikDebugError, match="x input shape mismatch"):
        ti.tikdb.start_debug({"x": np.zeros(16, np.float16), "k": 1}, interactive=False)
    with pytest.raises(TikDebugError, match="x input dtype mismatch"):
        ti.tikdb.start_debug({"x": np.zeros(32, np.float32), "k": 1}, interactive=False)
    with pytest.raises(TikDebugError, match="InputScalar k is int32: feed a Python int"):
        ti.tikdb.start_debug({"x": x, "k": 1.5}, interactive=False)
    with pytest.raises(TikDebugError, match="out of the range of int32"):
        ti.tikdb.start_debug({"x": x, "k": 1 << 40}, interactive=False)


def test_unwritten_outputs_hold_repeatable_random_bytes():
    ti = _copy_kernel()
    x = np.arange(32).astype(np.float16)
    y1, z1 = ti.tikdb.start_debug({"x": x, "k": 0}, interactive=False)
    y2, z2 = ti.tikdb.start_debug({"x": x, "k": 0}, interactive=False)
    np.testing.assert_array_equal(y1, x)
    assert z1.tobytes() == z2.tobytes()                      # a fixed seed
    assert len(set(z1.view(np.uint8).tolist())) > 8          # random bytes, not a fill pattern


def test_interactive_without_a_terminal_says_so_and_runs_through(monkeypatch, capsys):
    ti = _copy_kernel()
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    y, _ = ti.tikdb.start_debug({"x": np.ones(32, np.float16), "k": 3}, interactive=True)
    np.testing.assert_array_equal(y, np.ones(32, np.float16))
    assert "stdin is not a terminal" in capsys.readouterr().err


def test_start_debug_before_buildcce():
    with pytest.raises(TikDebugError, match="start_debug should be called after BuildCCE"):
        tik.Tik().tikdb.start_debug({}, interactive=False)


def test_debug_print_shows_scalars_each_time_the_kernel_passes(capsys):
    ti = tik.Tik()
    x = ti.Tensor("int32", (8,), name="x", scope=tik.scope_gm)
    y = ti.Tensor("int32", (8,), name="y", scope=tik.scope_gm)
    u = ti.Tensor("int32", (8,), name="u", scope=tik.scope_ubuf)
    ti.data_move(u, x, 0, 1, 1, 0, 0)
    with ti.for_range(0, 2, block_num=2) as core:
        with ti.for_range(0, 3) as i:
            v = ti.Scalar("int32", name="v", init_value=u[core * 3 + i])
            ti.tikdb.debug_print(v * 2)
        ti.tikdb.debug_print("done")
        ti.data_move(y, u, 0, 1, 1, 0, 0)
    with pytest.raises(TikSyntaxError, match="debug_print takes a Scalar or an Expr"):
        ti.tikdb.debug_print(u)
    ti.BuildCCE("tik_debug_print", [x], [y])
    y_np, = ti.tikdb.start_debug({"x": np.arange(8, dtype=np.int32) + 10}, interactive=False)
    np.testing.assert_array_equal(y_np, np.arange(8) + 10)
    assert capsys.readouterr().out.splitlines() == [
        "[tikdb block 0] (v * 2) = 20", "[tikdb block 0] (v * 2) = 22", "[tikdb block 0] (v * 2) = 24",
        "[tikdb block 0] done",
        "[tikdb block 1] (v * 2) = 26", "[tikdb block 1] (v * 2) = 28", "[tikdb block 1] (v * 2) = 30",
        "[tikdb block 1] done"]


@pytest.mark.parametrize("soc,cores", [("Ascend910", 32), ("Ascend310", 2)])
def test_soc_queries(soc, cores):
    from tbe.common.platform import api_check_support, get_bit_len, get_soc_spec, set_current_compile_soc_info
    assert set_current_compile_soc_info(soc) == "success"
    assert get_soc_spec("SOC_VERSION") == soc and get_soc_spec("CORE_NUM") == cores
    assert get_soc_spec("UB_SIZE") == 262144
    assert tik.Dprofile().get_aicore_num() == cores
    assert tik.Tik().d_profiling.get_unified_buffer_size() == 262144
    assert get_bit_len("float16") == 16 and get_bit_len("int8") == 8
    assert api_check_support("tik.vadd", "float16")
    assert api_check_support("tik.vec_exp", "float32") == (soc == "Ascend910")
    assert api_check_support("tik.vdiv", "float32") == (soc == "Ascend910")
    assert api_check_support("tik.vtranspose", "float16") and api_check_support("tik.vec_trans_scatter", "int8")
    assert not api_check_support("tik.vec_cpadd", "float32")      # float16 only on Ascend310 / Ascend910
    assert all(api_check_support(f"tik.{name}") for name in ("matmul", "fixpipe", "mmad", "load2dv1", "load3dv1"))
    assert api_check_support("tik.matmul", "float16") and api_check_support("tik.mmad", "int8")
    assert not api_check_support("tik.matmul", "float32")


def test_te_era_platform_queries():
    from te.platform import cce_conf
    cce_conf.te_set_version("Ascend310")
    assert cce_conf.get_soc_spec("CORE_NUM") == 2


@pytest.mark.parametrize("name", sorted(MISSING))   # empty once every TIK API runs
def test_apis_the_simulator_cannot_run_yet_say_so(name):
    with pytest.raises(TikInstructionUnsupportedError, match=f"tik_instance.{name} is not supported by npusim yet"):
        getattr(tik.Tik(), name)(None, None)
