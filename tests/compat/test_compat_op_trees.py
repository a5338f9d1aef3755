"""Two CANN op trees in one process, the way a test runner runs them: each tree's ``impl.<op>`` is its own code, its
own ``impl/util/platform_adapter.py`` is used when present and npusim's when absent, and every op builds and runs on
the simulator with the tree's maths."""
import importlib
import sys

import numpy as np
import pytest
from compat_op_trees import forget_impl, make_tree, switch_to

from mindspore import Tensor, ops


@pytest.fixture
def trees(tmp_path, monkeypatch):
    """The relu tree (own platform_adapter) and the abs tree (none); sys.path and impl* are restored afterwards."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("NPUSIM_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(sys, "path", list(sys.path))
    relu = make_tree(tmp_path / "relu_tree", "relu", "vrelu", factor=2, own_adapter=True)
    absolute = make_tree(tmp_path / "abs_tree", "abs", "vabs", factor=3, own_adapter=False)
    yield relu, absolute
    forget_impl()
    importlib.invalidate_caches()


def run_tree(x: np.ndarray):
    """Import impl.act / impl.scale as the current sys.path resolves them and run both through ops.Custom."""
    act = importlib.import_module("impl.act").act
    scale = importlib.import_module("impl.scale").scale
    same = lambda shape: shape  # noqa: E731
    act_out = ops.Custom(act, out_shape=same, out_dtype=same, func_type="tbe")(Tensor(x)).asnumpy()
    scale_out = ops.Custom(scale, out_shape=same, out_dtype=same, func_type="tbe")(Tensor(x)).asnumpy()
    return act_out, scale_out


def test_each_tree_runs_its_own_ops_and_platform_adapter(trees):
    npusim_adapter = importlib.import_module("te_compat.impl.util.platform_adapter")
    relu_tree, abs_tree = trees
    x = np.linspace(-4, 4, 48).reshape(3, 16).astype(np.float16)
    previous = None
    for tree in (relu_tree, abs_tree, relu_tree):  # back again: the first tree is found anew, not remembered
        switch_to(tree, previous)
        previous = tree
        act_out, scale_out = run_tree(x)
        assert importlib.import_module("impl.act").__file__ == str(tree / "impl" / "act.py")
        adapter = sys.modules["impl.util.platform_adapter"]
        if tree is relu_tree:
            np.testing.assert_array_equal(act_out, np.maximum(x, 0))
            np.testing.assert_array_equal(scale_out, x * np.float16(2))
            assert adapter.OWNER == "relu-tree" and adapter.__file__ == str(tree / "impl/util/platform_adapter.py")
        else:
            np.testing.assert_array_equal(act_out, np.abs(x))
            np.testing.assert_array_equal(scale_out, x * np.float16(3))
            assert adapter is npusim_adapter and not hasattr(adapter, "OWNER")


def test_missing_impl_util_modules_are_filled_in_from_npusim(trees):
    npusim_util = importlib.import_module("te_compat.impl.util")
    npusim_util_common = importlib.import_module("te_compat.impl.util.util_common")
    relu_tree, abs_tree = trees
    switch_to(relu_tree, None)
    util_common = importlib.import_module("impl.util.util_common")  # the relu tree's util/ has no util_common
    assert util_common is npusim_util_common
    assert importlib.import_module("impl.util").__file__ == str(relu_tree / "impl/util/__init__.py")
    switch_to(abs_tree, relu_tree)
    assert importlib.import_module("impl.util") is npusim_util  # the abs tree has no util/ at all
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("impl.no_such_op")  # npusim has none either: the name stays missing


def test_an_op_missing_from_the_current_tree_is_not_taken_from_the_previous_one(trees, tmp_path):
    relu_tree, _ = trees
    other = tmp_path / "other_tree"
    (other / "impl").mkdir(parents=True)
    (other / "impl" / "__init__.py").write_text("")
    switch_to(relu_tree, None)
    importlib.import_module("impl.act")
    switch_to(other, relu_tree)
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("impl.act")


def test_a_namespace_impl_tree_is_the_users_and_gets_npusims_util(trees, tmp_path):
    npusim_adapter = importlib.import_module("te_compat.impl.util.platform_adapter")
    tree = make_tree(tmp_path / "ns_tree", "ns", "vabs", factor=5, own_adapter=False, namespace=True)
    switch_to(tree, None)
    impl = importlib.import_module("impl")
    assert getattr(impl, "__file__", None) is None and str(tree / "impl") in list(impl.__path__)
    assert importlib.import_module("impl.scale").FACTOR == 5
    assert sys.modules["impl.util.platform_adapter"] is npusim_adapter
