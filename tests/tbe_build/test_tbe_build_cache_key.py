"""What the Custom tbe kernel cache key covers of the impl function: closure and default values by content, and the
source of user helper modules it imports, so an edit or another captured value never reuses a stale kernel."""
import importlib
import re
import sys
import textwrap

import numpy as np
import pytest

from mindspore import Tensor, ops
from mindspore.ops import CustomRegOp, DataType, custom_info_register
from npusim.custom.backends.tbe import clear_memory_cache
from npusim.custom.backends.tbe_key import describe, source_digest


def scale_reg():
    return (CustomRegOp().input(0, "x").output(0, "y").dtype_format(DataType.F32_Default, DataType.F32_Default)
            .target("Ascend").get_op_info())


def make_scale(factors):
    """A factory whose impls differ only by the list they close over."""
    import te.lang.cce
    from te import tvm
    from topi import generic

    @custom_info_register(scale_reg())
    def scale(x, y, kernel_name="scale"):
        data = tvm.placeholder(x["shape"], name="data", dtype=x["dtype"].lower())
        res = te.lang.cce.vmuls(data, factors[0])
        with tvm.target.cce():
            sch = generic.auto_schedule(res)
        te.lang.cce.cce_build_code(sch, {"name": kernel_name, "tensor_list": [data, res]})
    return scale


def run(func, x):
    op = ops.Custom(func, out_shape=lambda s: s, out_dtype=lambda d: d, func_type="tbe")
    return op(Tensor(x)).asnumpy()


@pytest.fixture(autouse=True)
def _private_cache(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("NPUSIM_CACHE_DIR", str(tmp_path / "cache"))
    clear_memory_cache()
    yield
    clear_memory_cache()


def test_closures_of_one_factory_with_different_lists_build_different_kernels():
    x = np.arange(64, dtype=np.float32).reshape(2, 32)
    np.testing.assert_array_equal(run(make_scale([2.0]), x), x * 2)
    np.testing.assert_array_equal(run(make_scale([3.0]), x), x * 3)
    clear_memory_cache()  # the disk cache must tell them apart too
    np.testing.assert_array_equal(run(make_scale([3.0]), x), x * 3)
    np.testing.assert_array_equal(run(make_scale([2.0]), x), x * 2)


def test_a_captured_list_mutated_in_place_changes_the_key():
    factors = [2.0]
    func = make_scale(factors)
    before = source_digest(func)
    assert source_digest(func) == before  # stable: no memory addresses
    factors[0] = 5.0
    assert source_digest(func) != before
    x = np.ones((4, 16), np.float32)
    np.testing.assert_array_equal(run(func, x), x * 5)


def test_describe_is_by_content_and_never_by_address():
    class Handle:
        pass

    assert describe([1, 2.0, "a"]) == describe([1, 2.0, "a"]) != describe([1, 2.5, "a"])
    assert describe({"b": 1, "a": (2,)}) == describe({"a": (2,), "b": 1})
    assert describe(np.arange(4)) != describe(np.arange(4) + 1)
    assert describe(Handle()) == describe(Handle())
    address = re.compile(r"at 0x[0-9a-f]+")
    assert not address.search(describe(Handle())) and not address.search(describe(lambda: None))


def test_editing_a_user_helper_module_rebuilds_the_kernel(tmp_path, monkeypatch):
    pkg = tmp_path / "userops"
    pkg.mkdir()
    (pkg / "helper.py").write_text("FACTOR = 2.0\n")
    (pkg / "myop.py").write_text(textwrap.dedent('''
        import te.lang.cce
        from te import tvm
        from topi import generic
        from mindspore.ops import CustomRegOp, DataType, custom_info_register
        from helper import FACTOR
        import helper

        REG = (CustomRegOp().input(0, "x").output(0, "y")
               .dtype_format(DataType.F32_Default, DataType.F32_Default).target("Ascend").get_op_info())

        @custom_info_register(REG)
        def scale(x, y, kernel_name="scale"):
            data = tvm.placeholder(x["shape"], name="data", dtype=x["dtype"].lower())
            res = te.lang.cce.vmuls(data, helper.FACTOR)
            with tvm.target.cce():
                sch = generic.auto_schedule(res)
            te.lang.cce.cce_build_code(sch, {"name": kernel_name, "tensor_list": [data, res]})
    '''))
    monkeypatch.syspath_prepend(str(pkg))
    for name in ("helper", "myop"):
        sys.modules.pop(name, None)
    x = np.arange(32, dtype=np.float32).reshape(2, 16)
    myop = importlib.import_module("myop")
    np.testing.assert_array_equal(run(myop.scale, x), x * 2)
    first = source_digest(myop.scale)

    (pkg / "helper.py").write_text("FACTOR = 3.0\n")
    helper = importlib.reload(sys.modules["helper"])
    assert helper.FACTOR == 3.0
    assert source_digest(myop.scale) != first
    np.testing.assert_array_equal(run(myop.scale, x), x * 3)
    for name in ("helper", "myop"):
        sys.modules.pop(name, None)


def test_library_modules_do_not_enter_the_key():
    import os
    import npusim
    import te_compat
    from npusim.custom.backends.tbe_key import user_module_files
    func = make_scale([1.0])
    files = user_module_files(func)
    # the packages' own directories, not any path with "npusim" in it: a clone of the repository may be named npusim
    packages = tuple(os.path.dirname(os.path.realpath(m.__file__)) + os.sep for m in (npusim, te_compat))
    assert files and all("site-packages" not in f and not os.path.realpath(f).startswith(packages) for f in files)


def test_partials_bound_methods_and_objects_count_by_content():
    import functools

    def impl(x, y, value=1.0, kernel_name="k"):
        return value

    class Op:
        def __init__(self, value):
            self.value = value

        def impl(self, x, y, kernel_name="k"):
            return self.value

    class Cfg:
        __slots__ = ("value",)

        def __init__(self, value):
            self.value = value

    def closing_over(cfg):
        def impl_cfg(x, y, kernel_name="k"):
            return cfg.value
        return impl_cfg

    assert source_digest(functools.partial(impl, value=1.0)) != source_digest(functools.partial(impl, value=2.0))
    assert source_digest(functools.partial(impl, value=1.0)) == source_digest(functools.partial(impl, value=1.0))
    assert source_digest(Op(3.0).impl) != source_digest(Op(4.0).impl)
    assert source_digest(Op(3.0).impl) == source_digest(Op(3.0).impl)
    assert source_digest(closing_over(Cfg(1.0))) != source_digest(closing_over(Cfg(2.0)))
    assert source_digest(closing_over(Cfg(1.0))) == source_digest(closing_over(Cfg(1.0)))


def test_a_partial_impl_builds_per_bound_value():
    import functools
    from te import tvm
    import te.lang.cce
    from topi import generic

    @custom_info_register(scale_reg())
    def scale(x, y, factor=1.0, kernel_name="scale"):
        data = tvm.placeholder(x["shape"], name="data", dtype=x["dtype"].lower())
        res = te.lang.cce.vmuls(data, factor)
        with tvm.target.cce():
            sch = generic.auto_schedule(res)
        te.lang.cce.cce_build_code(sch, {"name": kernel_name, "tensor_list": [data, res]})

    x = np.arange(32, dtype=np.float32).reshape(2, 16)
    twice, thrice = functools.partial(scale, factor=2.0), functools.partial(scale, factor=3.0)
    for bound in (twice, thrice):
        functools.update_wrapper(bound, scale)
    np.testing.assert_array_equal(run(twice, x), x * 2)
    np.testing.assert_array_equal(run(thrice, x), x * 3)


def test_the_key_does_not_depend_on_how_the_script_path_was_spelled(tmp_path, monkeypatch):
    """A script run as ``examples/x.py`` or ``/abs/examples/x.py`` builds the same kernel: its code then carries
    the relative spelling while its module's ``__file__`` is absolute, and the file must count once."""
    import types
    script = tmp_path / "examples" / "impl_script.py"
    script.parent.mkdir()
    source = "def impl(x, y, kernel_name='k'):\n    return x\n"
    script.write_text(source)
    monkeypatch.chdir(tmp_path)
    digests = []
    for spelling in ("examples/impl_script.py", str(script)):
        module = types.ModuleType("npusim_probe_script")
        module.__file__ = str(script)
        monkeypatch.setitem(sys.modules, module.__name__, module)
        exec(compile(source, spelling, "exec"), module.__dict__)  # noqa: S102
        digests.append(source_digest(module.impl))
    assert digests[0] == digests[1]
