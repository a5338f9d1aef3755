"""`npusim run` and the compatibility layer."""
import os
import subprocess
import sys
import textwrap

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def run(args, cwd, **kw):
    env = dict(os.environ)
    env["PYTHONPATH"] = REPO + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.run([sys.executable, "-m", "npusim", *args], cwd=cwd, capture_output=True, text=True,
                          env=env, timeout=120, **kw)


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


def test_script_sees_argv_main_and_its_directory(tmp_path):
    write(tmp_path, "helper_mod.py", "VALUE = 41\n")
    write(tmp_path, "script.py", """
        import sys
        import helper_mod
        print("argv", sys.argv)
        print("main", __name__)
        print("value", helper_mod.VALUE + 1)
    """)
    p = run(["run", "script.py", "a", "--flag"], cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert "argv ['script.py', 'a', '--flag']" in p.stdout
    assert "main __main__" in p.stdout and "value 42" in p.stdout


def test_every_import_spelling_resolves(tmp_path):
    write(tmp_path, "imports.py", """
        import mindspore
        import mindspore as ms
        import mindspore.ops as ops
        import mindspore.ops.operations as P
        import mindspore.nn as nn
        import mindspore.context as context
        from mindspore import dtype as mstype
        import mindspore.common.dtype as mstype2
        from mindspore.ops import CustomRegOp, custom_info_register, DataType, kernel
        from mindspore.ops import functional as F, composite as C
        from mindspore import Tensor, Parameter, ParameterTuple, context as ctx2
        from mindspore.nn import Cell
        assert ms is mindspore and mstype.float32 is mstype2.float32 is ms.float32
        assert P.Add is ops.Add and ops.Custom is P.Custom and ctx2 is context
        assert C.GradOperation is ops.GradOperation and callable(kernel)
        import npusim.frontend.tensor
        assert Tensor is npusim.frontend.tensor.Tensor
        print("ok")
    """)
    p = run(["run", "imports.py"], cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == "ok"


def test_exit_status_and_errors(tmp_path):
    write(tmp_path, "exits.py", "import sys\nsys.exit(3)\n")
    assert run(["run", "exits.py"], cwd=tmp_path).returncode == 3
    write(tmp_path, "raises.py", "raise KeyError('boom')\n")
    p = run(["run", "raises.py"], cwd=tmp_path)
    assert p.returncode == 1 and "KeyError: 'boom'" in p.stderr
    p = run(["run", "missing.py"], cwd=tmp_path)
    assert p.returncode == 2 and "no such script" in p.stderr
    p = run(["frobnicate"], cwd=tmp_path)
    assert p.returncode == 2 and "unknown command" in p.stderr


def _real_mindspore_installed() -> bool:
    """Whether this interpreter has a real MindSpore distribution installed (the bridge's test environment):
    then ``mindspore`` is found without npusim's layer, and that is the user's install, not npusim's doing."""
    code = "import importlib.metadata as m\ntry:\n m.distribution('mindspore'); print('yes')\nexcept m.PackageNotFoundError: print('no')"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd="/")
    return p.stdout.strip() == "yes"


def test_no_mindspore_in_site_packages_without_the_layer():
    code = "import importlib.util, sys; s = importlib.util.find_spec('mindspore'); print(s is None or s.origin)"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd="/")
    if _real_mindspore_installed():      # found, and it is the real one, not a module npusim put there
        assert "npusim" not in p.stdout and p.stdout.strip() != "True", p.stdout
        return
    assert p.stdout.strip() == "True"


def test_compat_layer_from_python():
    code = ("import npusim.compat as c; import mindspore; print(mindspore.__name__); c.uninstall(); "
            "import importlib.util; s = importlib.util.find_spec('mindspore'); "
            "print(s is None or 'npusim' in (s.origin or ''))")
    env = dict(os.environ, PYTHONPATH=REPO)
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd="/")
    after = "False" if _real_mindspore_installed() else "True"     # uninstalled: the real one is found again
    assert p.stdout.split() == ["npusim.ms", after], p.stderr
