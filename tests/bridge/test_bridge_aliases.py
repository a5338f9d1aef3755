"""The alias layer in bridge mode serves only te / tbe / topi / impl and never touches a real MindSpore's modules
(subprocesses: the test process has npusim's own mindspore switched on)."""
import subprocess
import sys
import textwrap

from bridge_env import REPO


def _python(code: str, tmp_path) -> subprocess.CompletedProcess:
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=str(tmp_path), capture_output=True,
                          text=True, timeout=300, env={"PYTHONPATH": REPO, "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc


def _fake_installed_mindspore(tmp_path):
    """A package named mindspore in a site-packages directory (what an installed MindSpore looks like)."""
    package = tmp_path / "site-packages" / "mindspore"
    (package / "ops").mkdir(parents=True)
    (package / "__init__.py").write_text("REAL = True\n")
    (package / "ops" / "__init__.py").write_text("REAL_OPS = True\n")
    return package.parent


def test_bridge_mode_leaves_mindspore_to_the_installation_and_serves_te(tmp_path):
    site = _fake_installed_mindspore(tmp_path)
    proc = _python(f"""
        import sys
        sys.path.insert(0, {str(site)!r})
        from npusim.compat import aliases
        aliases.set_bridge_mode(True)
        aliases.install()
        import mindspore, mindspore.ops, te, impl.util.platform_adapter
        print(mindspore.REAL, mindspore.ops.REAL_OPS, te.__name__, aliases.bridge_mode())
        aliases.install()          # npusim run installs again: the mode sticks
        print(aliases.bridge_mode())
    """, tmp_path)
    assert proc.stdout.split() == ["True", "True", "te_compat.te", "True", "True"]


def test_uninstall_forgets_served_names_only_and_mindspore_reimports(tmp_path):
    site = _fake_installed_mindspore(tmp_path)
    proc = _python(f"""
        import importlib, sys
        sys.path.insert(0, {str(site)!r})
        from npusim.compat import aliases
        aliases.set_bridge_mode(True)
        aliases.install()
        import mindspore.ops, te
        aliases.uninstall()
        print("mindspore" in sys.modules, "mindspore.ops" in sys.modules, "te" in sys.modules)
        del sys.modules["mindspore"], sys.modules["mindspore.ops"]
        print(importlib.import_module("mindspore.ops").REAL_OPS)
    """, tmp_path)
    assert proc.stdout.split() == ["True", "True", "False", "True"]


def test_bridge_mode_is_refused_once_npusims_mindspore_is_imported(tmp_path):
    proc = _python("""
        from npusim.compat import aliases
        from npusim.errors import BridgeConflictError
        aliases.install()
        import mindspore
        try:
            aliases.set_bridge_mode(True)
        except BridgeConflictError as exc:
            print("refused:", "npusim.bridge" in str(exc))
        print(aliases.bridge_mode())
    """, tmp_path)
    assert proc.stdout.split() == ["refused:", "True", "False"]


def test_bridge_mode_off_serves_npusims_mindspore_again(tmp_path):
    proc = _python("""
        from npusim.compat import aliases
        aliases.set_bridge_mode(True)
        aliases.set_bridge_mode(False)
        aliases.install()
        import mindspore
        print(mindspore.__name__)
    """, tmp_path)
    assert proc.stdout.split() == ["npusim.ms"]
