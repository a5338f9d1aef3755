"""Ordinary misuse of the `npusim` command is one line and exit status 2, help is exit status 0, and a script's own
exception looks as it does under `python SCRIPT` (issue 11, item 16)."""
import os
import subprocess
import sys
import textwrap

import pytest

from npusim.cli import main

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def npusim(args, cwd):
    env = dict(os.environ, PYTHONPATH=REPO + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, "-m", "npusim", *args], cwd=cwd, capture_output=True, text=True,
                          env=env, timeout=120)


def python(args, cwd):
    return subprocess.run([sys.executable, *args], cwd=cwd, capture_output=True, text=True, timeout=60)


@pytest.fixture
def script(tmp_path):
    path = tmp_path / "ok.py"
    path.write_text("print('script ran')\n")
    return path


HELP = [
    (["--help"], "usage: npusim COMMAND"),
    (["help"], "usage: npusim COMMAND"),
    (["run", "--help"], "usage: npusim run"),
    (["profile", "--help"], "usage: npusim profile"),
    (["profile", "-h"], "usage: npusim profile"),
    (["help", "profile"], "usage: npusim profile"),
    (["chips", "--help"], "usage: npusim chips"),
    (["aicpu", "--help"], "usage: npusim aicpu"),
    (["aicpu", "build", "--help"], "usage: npusim aicpu build"),
]


@pytest.mark.parametrize("argv, first", HELP, ids=[" ".join(a) for a, _ in HELP])
def test_help_prints_usage_on_stdout_and_exits_0(argv, first, capsys):
    assert main(argv) == 0
    out, err = capsys.readouterr()
    assert out.startswith(first) and err == ""


MISUSE = [
    ([], "no command given"),
    (["frobnicate"], "unknown command 'frobnicate'"),
    (["--bogus"], "unknown command '--bogus'"),
    (["run"], "no script given"),
    (["run", "--bogus", "SCRIPT"], "unknown option '--bogus'"),
    (["run", "missing.py"], "no such script: missing.py"),
    (["profile"], "no script given"),
    (["profile", "--soc", "Ascend999", "SCRIPT"], "unknown Ascend chip 'Ascend999'"),
    (["profile", "--soc"], "expected one argument"),
    (["profile", "--bogus", "SCRIPT"], "unrecognized arguments: --bogus"),
    (["profile", "missing.py"], "no such script: missing.py"),
    (["profile", "--trace", "/no/such/dir/t.json", "SCRIPT"], "directory '/no/such/dir' does not exist"),
    (["chips", "Ascend999"], "unknown Ascend chip 'Ascend999'"),
    (["chips", "--bogus"], "unrecognized arguments: --bogus"),
    (["aicpu"], "required: command"),
    (["aicpu", "bogus"], "invalid choice: 'bogus'"),
    (["aicpu", "build"], "required: SRC, -o/--output"),
    (["aicpu", "include", "--bogus"], "unrecognized arguments: --bogus"),
]


@pytest.mark.parametrize("argv, says", MISUSE, ids=[" ".join(a) or "(nothing)" for a, _ in MISUSE])
def test_misuse_is_one_line_on_stderr_and_exit_status_2(argv, says, script, capsys, monkeypatch):
    monkeypatch.chdir(script.parent)
    argv = [str(script) if a == "SCRIPT" else a for a in argv]
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == "" and says in err and "Traceback" not in err
    assert err.count("\n") == 1 and err.startswith("npusim"), err


def test_usage_errors_from_the_installed_command_line(tmp_path, script):
    """The same through `python -m npusim` (what the `npusim` console script runs): status 2, one line."""
    for argv in (["profile"], ["profile", "--soc", "Ascend999", str(script)], ["run", "--nope"], ["chips", "X"]):
        done = npusim(argv, tmp_path)
        assert done.returncode == 2 and done.stdout == "", (argv, done.stderr)
        assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr, (argv, done.stderr)
    done = npusim(["profile", "--help"], tmp_path)
    assert done.returncode == 0 and done.stdout.startswith("usage: npusim profile") and done.stderr == ""


def test_profile_with_a_valid_chip_still_runs_the_script(script, capsys):
    assert main(["profile", "--soc", "Ascend910B1", str(script)]) == 0
    assert "script ran" in capsys.readouterr().out


def test_run_passes_options_after_the_script_to_the_script(tmp_path):
    (tmp_path / "argv.py").write_text("import sys\nprint(sys.argv[1:])\n")
    done = npusim(["run", "argv.py", "--help", "-x"], tmp_path)
    assert done.returncode == 0 and done.stdout.strip() == "['--help', '-x']"
    done = npusim(["run", "--", "argv.py", "--soc"], tmp_path)
    assert done.returncode == 0 and done.stdout.strip() == "['--soc']"


# ---- a script's own exception ---------------------------------------------------------------------------------
RAISES = """
def inner():
    raise KeyError("boom")


def outer():
    inner()


outer()
"""


@pytest.mark.parametrize("command", [["run"], ["profile"], ["profile", "--soc", "Ascend310"]])
@pytest.mark.parametrize("source", [RAISES, "x = (\n", "import sys\nsys.exit('bye')\n"],
                         ids=["exception", "syntax error", "exit with a message"])
def test_a_scripts_failure_reads_as_under_python(command, source, tmp_path):
    (tmp_path / "fails.py").write_text(textwrap.dedent(source))
    expected = python(["fails.py"], tmp_path)
    done = npusim([*command, "fails.py"], tmp_path)
    assert done.returncode == expected.returncode == 1
    assert done.stderr == expected.stderr
    assert "npusim" not in done.stderr.replace(str(tmp_path), "")


def test_the_traceback_starts_at_the_scripts_frame(tmp_path):
    (tmp_path / "fails.py").write_text(RAISES)
    done = npusim(["run", "fails.py"], tmp_path)
    lines = done.stderr.splitlines()
    assert lines[0] == "Traceback (most recent call last):"
    assert lines[1] == f'  File "{tmp_path / "fails.py"}", line 10, in <module>'
    assert lines[-1] == "KeyError: 'boom'" and "runpy" not in done.stderr and "runner.py" not in done.stderr
