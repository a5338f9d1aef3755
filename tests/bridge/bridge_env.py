"""Where the bridge tests find a real MindSpore: the interpreter named by ``NPUSIM_MINDSPORE_PYTHON``, else this
interpreter when it has a MindSpore distribution installed; tests needing one skip cleanly otherwise.

The tests run scripts in a subprocess of that interpreter (``python -m npusim run --mindspore real ...``): the test
process itself has npusim's own ``mindspore`` front end switched on (tests/conftest.py), which the bridge refuses
to mix with a real one.
"""
from __future__ import annotations

import importlib.metadata
import json
import os
import subprocess
import sys

import pytest

ENV_VAR = "NPUSIM_MINDSPORE_PYTHON"
DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
#: seconds one bridge script may take (MindSpore's import and graph compiles are slow on 2 shared cores)
TIMEOUT_S = 600


def _candidate() -> str | None:
    given = os.environ.get(ENV_VAR)
    if given:
        return given
    try:
        importlib.metadata.version("mindspore")
    except importlib.metadata.PackageNotFoundError:
        return None
    return sys.executable


def mindspore_python() -> str:
    """The interpreter with a real MindSpore and npusim importable; skips the test when there is none."""
    python = _candidate()
    if python is None:
        pytest.skip(f"no real MindSpore: pip install 'npusim[mindspore]', or set {ENV_VAR} to a Python that has it")
    probe = subprocess.run([python, "-c", "import importlib.metadata as m; print(m.version('mindspore'))"],
                           capture_output=True, text=True, timeout=120)
    if probe.returncode != 0:
        pytest.fail(f"{ENV_VAR}={python} cannot report its MindSpore version: {probe.stderr.strip()[-400:]}")
    return python


def run_npusim(python: str, args: list, cwd, timeout_s: float = TIMEOUT_S) -> subprocess.CompletedProcess:
    """``python -m npusim ARGS`` in ``cwd`` (npusim from this checkout)."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [REPO, os.environ.get("PYTHONPATH")])),
               GLOG_v="3")
    return subprocess.run([python, "-m", "npusim", *args], cwd=str(cwd), capture_output=True, text=True,
                          timeout=timeout_s, env=env)


def last_json(stdout: str) -> dict:
    """The JSON object a check script prints on its last line."""
    return json.loads(stdout.strip().splitlines()[-1])


def failure(proc: subprocess.CompletedProcess) -> str:
    return f"exit {proc.returncode}\nstdout:\n{proc.stdout[-2000:]}\nstderr:\n{proc.stderr[-4000:]}"
