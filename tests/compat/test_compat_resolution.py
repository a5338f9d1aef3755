"""Which module an alias name resolves to: npusim's only where the user's sys.path holds none (mindspore: npusim's
over an installed distribution), one module object per npusim module, and uninstall forgets only what it served."""
import importlib
import sys
import textwrap

import numpy as np
import pytest

from mindspore import Tensor, ops
from npusim.compat import aliases

MINDSPORE_CUSTOM_STYLE = '''
"""CorrectionMul-style op as MindSpore's own custom TBE ops import it."""
import te.lang.cce
from te import tvm
from te.platform.fusion_manager import fusion_manager
from tbe.tvm.topi import generic
from tbe.tvm.topi.cce import util


@fusion_manager.register("twice")
def twice_compute(x, y, kernel_name="twice"):
    return te.lang.cce.vmuls(x, 2.0)


@util.check_input_type(dict, dict, str)
def twice(x, y, kernel_name="twice"):
    shape = util.shape_refine(x.get("shape"))
    dtype = x.get("dtype").lower()
    util.check_kernel_name(kernel_name)
    util.check_dtype_rule(dtype, ("float16", "float32"))
    data = tvm.placeholder(shape, name="data", dtype=dtype)
    res = twice_compute(data, y, kernel_name)
    with tvm.target.cce():
        sch = generic.auto_schedule(res)
    te.lang.cce.cce_build_code(sch, {"name": kernel_name, "tensor_list": [data, res]})
'''


def write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip())
    return path


def test_tbe_tvm_is_a_package_with_the_submodules_real_ops_import():
    import te_compat.te.tvm as te_tvm
    import te_compat.topi.cce.util as topi_util
    import te_compat.topi.generic as topi_generic
    from tbe.tvm.topi import generic
    from tbe.tvm.topi.cce import util
    from tbe import tvm
    from tbe.tvm.expr import ConstExpr, Var
    from tbe.tvm.tensor import Tensor as TvmTensor
    assert generic.auto_schedule is topi_generic.auto_schedule
    assert util.check_kernel_name is topi_util.check_kernel_name and util.shape_refine is topi_util.shape_refine
    assert tvm.placeholder is te_tvm.placeholder and tvm.target.cce is te_tvm.target.cce
    assert Var is te_tvm.expr.Var and ConstExpr is te_tvm.expr.ConstExpr and TvmTensor is te_tvm.tensor.Tensor
    assert tvm.topi.generic is generic and sys.modules["tbe.tvm.topi.cce.util"] is util is topi_util
    assert tvm.expr is te_tvm.expr and tvm.topi is sys.modules["te_compat.topi"]


def test_mindspore_custom_op_style_imports_build_and_run(tmp_path, monkeypatch, alias_names):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("NPUSIM_CACHE_DIR", str(tmp_path / "cache"))
    write(tmp_path / "ops_dir" / "twice_impl.py", MINDSPORE_CUSTOM_STYLE)
    sys.path.insert(0, str(tmp_path / "ops_dir"))
    try:
        twice = importlib.import_module("twice_impl").twice
        op = ops.Custom(twice, out_shape=lambda s: s, out_dtype=lambda t: t, func_type="tbe")
        x = np.arange(-8, 8, dtype=np.float32).reshape(2, 8)
        np.testing.assert_array_equal(op(Tensor(x)).asnumpy(), x * 2)
    finally:
        sys.modules.pop("twice_impl", None)


def test_submodules_of_npusims_packages_are_npusims_module_objects():
    import te
    import te.lang.cce
    import te_compat.te
    import te_compat.te.lang
    import te_compat.te.lang.cce
    import tbe.tvm.topi.cce.util
    assert te is te_compat.te and te.lang is te_compat.te.lang and te.lang.cce is te_compat.te.lang.cce
    assert sys.modules["te.lang.cce"] is te_compat.te.lang.cce
    # the modules keep their own spec (a second copy would have been loaded under the alias name)
    assert te.__spec__.name == "te_compat.te" and te.lang.cce.__spec__.name == "te_compat.te.lang.cce"
    assert tbe.tvm.topi.cce.util.__spec__.name == "te_compat.topi.cce.util"
    assert not any(name.startswith("te.") and module.__name__ == name for name, module in sys.modules.items())


def test_a_users_own_te_module_wins(tmp_path, alias_names):
    write(tmp_path / "mine" / "te.py", "OWNER = 'user'\n")
    sys.path.insert(0, str(tmp_path / "mine"))
    alias_names("te")
    import te
    assert te.OWNER == "user" and te.__file__ == str(tmp_path / "mine" / "te.py")
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("te.lang")  # a module, not a package: plain Python's answer
    assert "te" not in aliases.served()


def test_a_users_own_te_package_wins_and_npusim_fills_in_what_it_lacks(tmp_path, alias_names):
    import te_compat.te.platform
    write(tmp_path / "mine" / "te" / "__init__.py", "OWNER = 'user'\n")
    write(tmp_path / "mine" / "te" / "tvm.py", "OWNER = 'user tvm'\n")
    sys.path.insert(0, str(tmp_path / "mine"))
    alias_names("te")
    from te import tvm
    import te.platform
    assert tvm.OWNER == "user tvm" and sys.modules["te"].OWNER == "user"
    assert te.platform is te_compat.te.platform  # the user's te has no platform/: npusim's serves it


def test_a_users_own_mindspore_wins_but_an_installed_one_is_shadowed(tmp_path, alias_names):
    import npusim.ms
    installed = tmp_path / "venv" / "lib" / "python3.11" / "site-packages"
    write(installed / "mindspore" / "__init__.py", "OWNER = 'installed'\n")
    sys.path.insert(0, str(installed))
    alias_names("mindspore")
    import mindspore
    assert mindspore is npusim.ms  # a distribution in site-packages is shadowed while the layer is on
    write(tmp_path / "project" / "mindspore" / "__init__.py", "OWNER = 'user'\n")
    write(tmp_path / "project" / "mindspore" / "ops.py", "OWNER = 'user ops'\n")
    sys.path.insert(0, str(tmp_path / "project"))
    alias_names("mindspore")
    import mindspore
    import mindspore.ops
    assert mindspore.OWNER == "user" and mindspore.ops.OWNER == "user ops"
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("mindspore.nn")  # a user's own mindspore is not topped up from npusim


def test_uninstall_forgets_only_what_it_served(tmp_path, alias_names):
    npusim_util = importlib.import_module("te_compat.impl.util")
    write(tmp_path / "tree" / "impl" / "__init__.py", "")
    write(tmp_path / "tree" / "impl" / "my_op.py", "from impl.util.platform_adapter import tbe\n")
    write(tmp_path / "tree" / "topi.py", "OWNER = 'user'\n")
    sys.path.insert(0, str(tmp_path / "tree"))
    alias_names("impl", "topi")
    user_impl, my_op = importlib.import_module("impl"), importlib.import_module("impl.my_op")
    user_topi = importlib.import_module("topi")
    import te
    assert sys.modules["impl.util"] is npusim_util and "impl.util" in aliases.served()
    aliases.uninstall()
    assert not aliases.installed() and aliases.served() == {}
    assert sys.modules["impl"] is user_impl and sys.modules["impl.my_op"] is my_op  # the user's stay
    assert sys.modules["topi"] is user_topi
    assert "impl.util" not in sys.modules and "impl.util.platform_adapter" not in sys.modules and "te" not in sys.modules
    assert sys.modules["te_compat.te"] is te  # npusim's modules stay under their own names
    aliases.install()
    assert importlib.import_module("te") is te


def test_the_layer_finds_nothing_for_names_it_does_not_alias():
    assert aliases.AliasFinder().find_spec("numpy") is None
    assert aliases.AliasFinder().find_spec("temporary_name_te") is None
