"""Every module path real TBE op files import resolves (through the compat layer) to te_compat."""
import importlib
import sys

import pytest

MODULES = [
    "te", "te.lang", "te.lang.cce", "te.lang.cce.te_compute", "te.lang.cce.te_compute.elewise_compute",
    "te.lang.cce.te_compute.broadcast_compute", "te.lang.cce.te_compute.reduction_compute",
    "te.lang.cce.te_compute.cast_compute", "te.lang.cce.te_compute.common", "te.lang.cce.te_compute.util",
    "te.lang.cce.te_compute.concat_compute", "te.lang.cce.te_compute.split_compute",
    "te.lang.cce.te_compute.segment_compute", "te.lang.cce.te_compute.inplace_compute",
    "te.lang.cce.te_schedule", "te.lang.cce.te_schedule.cce_schedule",
    "te.tvm", "te.tvm.api", "te.tvm.target", "te.tvm.tensor", "te.tvm.expr", "te.tvm.intrin", "te.tvm.schedule",
    "te.tvm.build_module", "te.tvm.ir_builder",
    "te.platform", "te.platform.cce_conf", "te.platform.cce_params", "te.platform.fusion_manager",
    "te.platform.cce_build",
    "te.utils", "te.utils.op_utils", "te.utils.para_check", "te.utils.shape_util", "te.utils.error_manager",
    "te.utils.cce",
    "topi", "topi.generic", "topi.cce", "topi.cce.util",
    "tbe", "tbe.tvm", "tbe.dsl", "tbe.dsl.api", "tbe.dsl.classify", "tbe.dsl.base", "tbe.dsl.base.operation",
    "tbe.common", "tbe.common.utils", "tbe.common.utils.para_check", "tbe.common.utils.shape_util",
    "tbe.common.utils.errormgr", "tbe.common.register", "tbe.common.platform", "tbe.common.platform.platform_info",
    "tbe.common.context", "tbe.common.context.op_context", "tbe.common.context.op_info", "tbe.common.buildcfg",
    "impl", "impl.util", "impl.util.platform_adapter", "impl.util.util_common",
]


@pytest.mark.parametrize("name", MODULES)
def test_module_imports_as_the_te_compat_module(name):
    module = importlib.import_module(name)
    assert module is importlib.import_module("te_compat." + name)
    assert sys.modules[name] is module


def test_star_import_of_op_utils_gives_the_check_names():
    namespace = {}
    exec("from te.utils.op_utils import *", namespace)
    for name in ("check_op_params", "REQUIRED_INPUT", "OPTION_INPUT", "REQUIRED_OUTPUT", "REQUIRED_ATTR_INT",
                 "REQUIRED_ATTR_FLOAT", "REQUIRED_ATTR_BOOL", "REQUIRED_ATTR_STR", "REQUIRED_ATTR_LIST_INT",
                 "OPTION_ATTR_BOOL", "KERNEL_NAME", "check_shape", "check_dtype", "check_kernel_name", "check_format",
                 "refine_shape_axes", "broadcast_shapes"):
        assert name in namespace, name
    assert not any(name.startswith("_") for name in namespace if name != "__builtins__")


def test_para_check_spellings_share_the_functions():
    import tbe.common.utils.para_check as tbe_para_check
    import te.utils.op_utils as op_utils
    import te.utils.para_check as te_para_check
    for name in te_para_check.__all__:
        assert getattr(te_para_check, name) is getattr(op_utils, name) is getattr(tbe_para_check, name), name
    # op_utils' star import also brings CANN 2020's fusion_manager (issue 15)
    assert set(op_utils.__all__) - set(te_para_check.__all__) == {"fusion_manager"}


def test_dsl_namespaces_re_export_every_dsl_function():
    dsl = pytest.importorskip("te_compat.dsl")
    import tbe.dsl
    import te.lang.cce
    from te.lang.cce.te_compute import elewise_compute
    from te_compat.surface import dsl_functions  # the DSL functions as surface functions (str dtypes)
    for name in dsl.__all__:
        served = getattr(dsl_functions, name)
        assert served.__wrapped__ is getattr(dsl, name), name
        assert getattr(te.lang.cce, name) is served, name
        assert getattr(tbe.dsl, name) is served, name
        assert getattr(elewise_compute, name) is served, name
    assert set(dsl.__all__) <= set(te.lang.cce.__all__)
    assert {"auto_schedule", "cce_build_code"} <= set(te.lang.cce.__all__)
    assert {"auto_schedule", "build", "classify", "compute", "var"} <= set(tbe.dsl.__all__)
    assert set(dsl.__all__) <= set(dir(tbe.dsl))


def test_unknown_names_raise_attribute_error():
    import te.lang.cce
    import tbe.dsl
    with pytest.raises(AttributeError):
        te.lang.cce.no_such_dsl_function  # noqa: B018
    with pytest.raises(ImportError):
        exec("from tbe.dsl import no_such_dsl_function", {})
    assert not hasattr(tbe.dsl, "__wrapped__")


def test_attribute_paths_op_files_use():
    import te
    import te.lang.cce
    import tbe
    import topi
    from impl.util import platform_adapter as adapter
    assert te.lang.cce.auto_schedule is te.utils.cce.auto_schedule is topi.generic.auto_schedule
    assert te.platform.cce_conf.get_soc_spec is te.platform.get_soc_spec is tbe.common.platform.get_soc_spec
    assert tbe.compute is tbe.dsl.compute and tbe.var is tbe.dsl.var
    assert adapter.tbe is tbe.dsl and adapter.tvm is tbe.tvm and adapter.classify is tbe.dsl.classify
    assert adapter.para_check is tbe.common.utils.para_check and adapter.shape_util is tbe.common.utils.shape_util
    assert adapter.tbe_platform.get_soc_spec("SOC_VERSION") == "Ascend910"
    assert adapter.tbe_platform.scope_ubuf == "local.UB" and adapter.OpPatternMode.ELEWISE_WITH_BROADCAST == "broadcast"
    from te.platform.fusion_manager import fusion_manager
    assert fusion_manager is adapter.tbe_platform.fusion_manager


def test_user_impl_packages_stay_importable(tmp_path, monkeypatch):
    """A custom-op project's own `impl/` directory keeps working beside impl.util.platform_adapter."""
    from npusim.compat import aliases
    project = tmp_path / "proj"
    (project / "impl").mkdir(parents=True)
    (project / "impl" / "__init__.py").write_text("")
    (project / "impl" / "my_op.py").write_text("from impl.util.platform_adapter import tbe\nVALUE = 7\n")
    monkeypatch.syspath_prepend(str(project))
    for name in [n for n in sys.modules if n == "impl" or n.startswith("impl.")]:
        monkeypatch.delitem(sys.modules, name)
    assert aliases.installed()
    before = set(sys.modules)
    try:
        my_op = importlib.import_module("impl.my_op")
        assert my_op.VALUE == 7 and my_op.tbe is importlib.import_module("tbe.dsl")
    finally:
        for name in set(sys.modules) - before:
            del sys.modules[name]


def test_uninstall_removes_the_names_and_install_restores_them():
    from npusim.compat import aliases
    import te_compat.te
    aliases.uninstall()
    try:
        assert "te" not in sys.modules
        with pytest.raises(ImportError):
            importlib.import_module("te")
    finally:
        aliases.install()
    assert importlib.import_module("te") is te_compat.te
    importlib.import_module("mindspore")  # the rest of the layer is back too
