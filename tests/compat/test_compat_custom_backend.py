"""The Custom tbe backend leaves the compatibility layer as the user set it; an impl that imports a layer name inside
the function while the layer is off gets an error saying how to switch it on.  aicpu_loader decides which
``mindspore`` lib directories to search without importing the layer."""
import os
import subprocess
import sys

import numpy as np
import pytest

from mindspore import Tensor, ops
from npusim.compat import aliases
from npusim.errors import TbeBuildError


def lazy_import_impl(x, y, kernel_name="lazy"):
    """An impl importing `te` only when called (as some op files do inside the function)."""
    import te.lang.cce
    from te import tvm
    data = tvm.placeholder(x["shape"], name="data", dtype=x["dtype"])
    res = te.lang.cce.vadds(data, 1.0)
    with tvm.target.cce():
        sch = te.lang.cce.auto_schedule(res)
    te.lang.cce.cce_build_code(sch, {"name": kernel_name, "tensor_list": [data, res]})


@pytest.fixture
def layer_off(tmp_path, monkeypatch, alias_names):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("NPUSIM_CACHE_DIR", str(tmp_path / "cache"))
    aliases.uninstall()
    yield
    aliases.install()


def test_a_build_with_the_layer_off_leaves_it_off_and_says_how_to_switch_it_on(layer_off):
    op = ops.Custom(lazy_import_impl, out_shape=lambda s: s, out_dtype=lambda t: t, func_type="tbe")
    with pytest.raises(TbeBuildError, match=r"No module named 'te'.*import npusim\.compat"):
        op(Tensor(np.ones(8, np.float32)))
    assert not aliases.installed() and "te" not in sys.modules


def test_a_build_with_the_layer_on_leaves_it_on(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("NPUSIM_CACHE_DIR", str(tmp_path / "cache"))
    op = ops.Custom(lazy_import_impl, out_shape=lambda s: s, out_dtype=lambda t: t, func_type="tbe")
    x = np.arange(8, dtype=np.float32)
    np.testing.assert_array_equal(op(Tensor(x)).asnumpy(), x + 1)
    assert aliases.installed()


def test_aicpu_lookup_does_not_import_the_compat_layer(tmp_path):
    project = tmp_path / "project"
    (project / "mindspore").mkdir(parents=True)
    (project / "mindspore" / "__init__.py").write_text("")
    code = ("import sys\nfrom aicpu_loader import lookup\nimport npusim.ms\n"
            "dirs = [str(d) for d in lookup.compat_lib_dirs()]\n"
            "print('npusim.compat' in sys.modules)\nprint(len(dirs))\nprint(dirs[-2])\n")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(project)  # a mindspore package of the user's, the layer off: its lib dirs count too
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, env=env)
    assert p.stdout.split() == ["False", "4", str(project / "mindspore" / "lib")], p.stderr


def test_aicpu_lookup_counts_npusims_mindspore_alias_once():
    from aicpu_loader import lookup
    import mindspore
    import npusim.ms
    assert mindspore is npusim.ms
    dirs = lookup.compat_lib_dirs()
    assert len(dirs) == len(set(dirs)) == 2 * len(npusim.ms.__path__)
