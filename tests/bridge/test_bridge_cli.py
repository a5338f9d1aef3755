"""`--mindspore {npusim,real}` on `npusim run` / `npusim profile`: usage errors, and the message without MindSpore
(these run in every environment)."""
import importlib.metadata
import subprocess
import sys

import pytest

from bridge_env import REPO


def _npusim(args, cwd):
    return subprocess.run([sys.executable, "-m", "npusim", *args], cwd=str(cwd), capture_output=True, text=True,
                          timeout=300, env={"PYTHONPATH": REPO, "PATH": "/usr/bin:/bin"})


def _has_mindspore() -> bool:
    try:
        importlib.metadata.version("mindspore")
    except importlib.metadata.PackageNotFoundError:
        return False
    return True


@pytest.fixture
def script(tmp_path):
    path = tmp_path / "hello.py"
    path.write_text("print('hello')\n")
    return path


@pytest.mark.parametrize("args", [["run", "--mindspore", "bogus"], ["run", "--mindspore=bogus"],
                                  ["run", "--mindspore"], ["profile", "--mindspore", "bogus"]])
def test_a_bad_choice_is_a_one_line_usage_error(args, script, tmp_path):
    proc = _npusim(args + [str(script)] if args[-1] != "--mindspore" else args, tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and "--mindspore" in proc.stderr
    assert "hello" not in proc.stdout


def test_run_help_names_the_option(tmp_path):
    proc = _npusim(["run", "--help"], tmp_path)
    assert proc.returncode == 0 and "--mindspore {npusim,real}" in proc.stdout


def test_default_and_explicit_npusim_front_end_still_run_the_script(script, tmp_path):
    for args in (["run", str(script)], ["run", "--mindspore", "npusim", str(script)]):
        proc = _npusim(args, tmp_path)
        assert proc.returncode == 0 and proc.stdout.strip() == "hello", proc.stderr


@pytest.mark.skipif(_has_mindspore(), reason="MindSpore is installed here")
@pytest.mark.parametrize("command", ["run", "profile"])
def test_real_without_mindspore_says_how_to_install_it(command, script, tmp_path):
    proc = _npusim([command, "--mindspore", "real", str(script)], tmp_path)
    assert proc.returncode == 1
    assert "hello" not in proc.stdout
    assert f"npusim {command}: " in proc.stderr and "pip install 'npusim[mindspore]'" in proc.stderr
    assert "Traceback" not in proc.stderr
