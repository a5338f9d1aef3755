"""Old-Python shims: installed once when the layer is switched on (npusim run, import npusim.compat, the pytest
plugin), never by importing a TBE module; an op file whose first statement is ``from collections import Iterable``
runs under ``npusim run`` and under the pytest plugin."""
import collections
import collections.abc
import fractions
import inspect
import os
import subprocess
import sys
import textwrap

import pytest

from npusim.compat import shims

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

#: a 2020 op file, as it starts: its first statement needs the collections alias
OP_FILE = '''
from collections import Iterable
from functools import reduce as functools_reduce

import te.lang.cce
from te import tvm
from topi import generic
from topi.cce import util


@util.check_input_type(dict, dict, str)
def negate(x, y, kernel_name="negate"):
    assert isinstance(x.get("shape"), Iterable)
    fused = functools_reduce(lambda a, b: a * b, x.get("shape"))
    data = tvm.placeholder((fused,), name="data", dtype=x.get("dtype").lower())
    res = te.lang.cce.vmuls(data, -1.0)
    with tvm.target.cce():
        sch = generic.auto_schedule(res)
    te.lang.cce.cce_build_code(sch, {"name": kernel_name, "tensor_list": [data, res]})


def run():
    import numpy as np
    from mindspore import Tensor, ops
    op = ops.Custom(negate, out_shape=lambda s: s, out_dtype=lambda t: t, func_type="tbe")
    x = np.arange(-3, 5, dtype=np.float32)
    return bool((op(Tensor(x)).asnumpy() == -x).all())


if __name__ == "__main__":
    print("negate ok:", run())
'''

PYTEST_FILE = '''
from collections import Iterable
from op_negate import run


def test_negate_runs():
    assert isinstance([], Iterable) and run()
'''


def subprocess_env(tmp_path) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTEST_ADDOPTS")}
    env["PYTHONPATH"] = REPO
    env["NPUSIM_CACHE_DIR"] = str(tmp_path / "cache")
    return env


def run(args, tmp_path, **env_extra):
    env = dict(subprocess_env(tmp_path), **env_extra)
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, cwd=tmp_path, env=env,
                          timeout=300)


def test_the_layer_installs_the_shims_and_tbe_modules_do_not(tmp_path):
    code = ("import collections, inspect\n"
            "import te_compat.te, te_compat.tbe, te_compat.topi, te_compat.impl.util.platform_adapter\n"
            "print(hasattr(collections, 'Iterable'), hasattr(inspect, 'getargspec'))\n"
            "import npusim.compat\n"
            "print(collections.Iterable is collections.abc.Iterable, inspect.getargspec is not None)\n")
    p = run(["-c", code], tmp_path)
    assert p.stdout.split() == ["False", "False", "True", "True"], p.stderr


def test_shims_are_the_old_names():
    assert collections.Iterable is collections.abc.Iterable and collections.Mapping is collections.abc.Mapping
    assert "collections.Iterable" in shims.installed() or sys.version_info < (3, 10)

    def legacy(a, b=2, *rest, **options):
        return a

    assert inspect.getargspec(legacy) == (["a", "b"], "rest", "options", (2,))
    assert inspect.getargspec(legacy).keywords == "options"
    with pytest.raises(ValueError, match="keyword-only"):
        inspect.getargspec(lambda a, *, b: a)
    assert fractions.gcd(12, -18) == -6 and fractions.gcd(-12, 18) == 6 and fractions.gcd(0, 0) == 0


def test_shims_uninstall_removes_only_what_they_added():
    added = shims.installed()
    assert added, "the layer is on for the test session, so the shims are installed"
    shims.uninstall()
    try:
        assert not hasattr(collections, "Iterable") and not hasattr(inspect, "getargspec")
        assert hasattr(collections, "OrderedDict") and hasattr(inspect, "getfullargspec")
        assert shims.installed() == ()
    finally:
        shims.install()
    assert set(shims.installed()) == set(added) and collections.Iterable is collections.abc.Iterable


def test_op_file_starting_with_collections_iterable_runs_under_npusim_run(tmp_path):
    script = tmp_path / "op_negate.py"
    script.write_text(textwrap.dedent(OP_FILE).lstrip())
    p = run(["-m", "npusim", "run", str(script)], tmp_path)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip().splitlines()[-1] == "negate ok: True"


@pytest.mark.parametrize("how", ["command line", "ini file"])
def test_op_file_starting_with_collections_iterable_runs_under_the_pytest_plugin(tmp_path, how):
    (tmp_path / "op_negate.py").write_text(textwrap.dedent(OP_FILE).lstrip())
    (tmp_path / "test_negate_op.py").write_text(textwrap.dedent(PYTEST_FILE).lstrip())
    base = ["-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly", "test_negate_op.py"]
    if how == "command line":  # the plugin module named explicitly (no entry-point autoload to clash with)
        p = run([*base, "-p", "npusim.pytest_plugin", "--npusim-compat"], tmp_path, PYTEST_DISABLE_PLUGIN_AUTOLOAD="1")
    else:  # the installed plugin (entry point "npusim") switched on by the ini option
        (tmp_path / "pytest.ini").write_text("[pytest]\nnpusim_compat = true\n")
        p = run(base, tmp_path)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "1 passed" in p.stdout


def test_without_the_layer_the_op_file_does_not_import(tmp_path):
    (tmp_path / "op_negate.py").write_text(textwrap.dedent(OP_FILE).lstrip())
    p = run(["-c", "import op_negate"], tmp_path)
    assert p.returncode != 0 and "cannot import name 'Iterable' from 'collections'" in p.stderr
