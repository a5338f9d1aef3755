"""Two CANN-style op trees for the import tests: each an ``impl/`` package with the SAME module names (``impl.act``,
``impl.scale``) and DIFFERENT maths.  The "relu" tree ships its own ``impl/util/platform_adapter.py``; the "abs"
tree has none, so npusim's serves it."""
from __future__ import annotations

import importlib
import sys
import textwrap
from pathlib import Path

ACT_2020 = '''
"""act: {doc}, written the 2020 te.lang.cce way."""
from __future__ import absolute_import

from functools import reduce as functools_reduce

import te.lang.cce
from te import tvm
from te.platform.fusion_manager import fusion_manager
from topi import generic
from topi.cce import util

SHAPE_SIZE_LIMIT = 2147483648


@fusion_manager.register("act")
def act_compute(x, y, kernel_name="act"):
    """the tree's own maths"""
    return te.lang.cce.{dsl_func}(x)


@util.check_input_type(dict, dict, str)
def act(x, y, kernel_name="act"):
    """act(x) for float16 x"""
    shape = x.get("shape")
    dtype = x.get("dtype").lower()
    util.check_shape_rule(shape)
    util.check_tensor_shape_size(shape)
    util.check_kernel_name(kernel_name)
    util.check_dtype_rule(dtype, ("float16",))
    fused = functools_reduce(lambda a, b: a * b, shape)
    data = tvm.placeholder((fused,), name="data", dtype=dtype)
    res = act_compute(data, y, kernel_name)
    with tvm.target.cce():
        sch = generic.auto_schedule(res)
    te.lang.cce.cce_build_code(sch, {{"name": kernel_name, "tensor_list": [data, res]}})
'''

SCALE_2021 = '''
"""scale: x * {factor}, written the 2021 platform_adapter way."""
from impl.util.platform_adapter import para_check
from impl.util.platform_adapter import tbe
from impl.util.platform_adapter import tvm

FACTOR = {factor}


@para_check.check_op_params(para_check.REQUIRED_INPUT, para_check.REQUIRED_OUTPUT, para_check.KERNEL_NAME)
def scale(x, y, kernel_name="scale"):
    """x * FACTOR"""
    dtype = x.get("dtype").lower()
    para_check.check_dtype(dtype, ("float16", "float32"), param_name="x")
    data = tvm.placeholder(x.get("shape"), name="data", dtype=dtype)
    res = tbe.vmuls(data, tvm.const(FACTOR, dtype=dtype))
    with tvm.target.cce():
        sch = tbe.auto_schedule(res)
    tbe.build(sch, {{"name": kernel_name, "tensor_list": [data, res]}})
'''

OWN_PLATFORM_ADAPTER = '''
"""The relu tree's own platform adapter (a project may pin what its ops see)."""
from tbe import dsl as tbe
from tbe import tvm
from tbe.common.utils import para_check

OWNER = "relu-tree"
'''

IMPL_INIT = '"""{name} op tree"""\n'


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip())
    return path


def make_tree(root: Path, name: str, dsl_func: str, factor: int, own_adapter: bool, namespace: bool = False) -> Path:
    """An op tree ``root/impl/{act,scale}.py`` (plus ``impl/util/platform_adapter.py`` when own_adapter)."""
    impl = root / "impl"
    if not namespace:
        write(impl / "__init__.py", IMPL_INIT.format(name=name))
    write(impl / "act.py", ACT_2020.format(doc=dsl_func, dsl_func=dsl_func))
    write(impl / "scale.py", SCALE_2021.format(factor=factor))
    if own_adapter:
        write(impl / "util" / "__init__.py", "")
        write(impl / "util" / "platform_adapter.py", OWN_PLATFORM_ADAPTER)
    return root


def forget_impl() -> None:
    """What a test runner does between op trees: drop every ``impl*`` module."""
    for name in [n for n in sys.modules if n == "impl" or n.startswith("impl.")]:
        del sys.modules[name]


def switch_to(tree: Path, previous: Path | None) -> None:
    """Forget ``impl*``, put ``tree`` first on sys.path instead of ``previous``, drop the finders' caches."""
    forget_impl()
    if previous is not None and str(previous) in sys.path:
        sys.path.remove(str(previous))
    sys.path.insert(0, str(tree))
    importlib.invalidate_caches()
