"""The seed documents' examples, run unmodified with `npusim run` in a temporary copy."""
import os
import re
import shutil
import subprocess
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
NUM = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?")


def run_seed(seed_dir, tmp_path, name):
    work = tmp_path / "seed"
    shutil.copytree(seed_dir, work)
    if name == "test_custom_aot.py":
        subprocess.run(["g++", "--shared", "-fPIC", "-o", "add.so", "add.cc"], cwd=work, check=True)
    env = dict(os.environ, PYTHONPATH=REPO + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, "-m", "npusim", "run", name], cwd=work, capture_output=True,
                          text=True, env=env, timeout=300)


def numbers(text):
    return [float(x) for x in NUM.findall(text)]


@pytest.mark.parametrize("name, expected", [
    ("test_custom_pyfunc.py", [2, 2, 4, 4]),
    ("test_custom_akg.py", [2, 2, 4, 4]),
    ("test_custom_aot.py", [2, 2, 4, 4]),
    ("test_grad_r16.py", [2, 8, 18]),
    ("test_grad_r20.py", [2, 8, 18]),
    ("test_custom_tbe.py", [2, 2, 4, 4]),
])
def test_seed_prints_documented_numbers(seed_dir, tmp_path, name, expected):
    p = run_seed(seed_dir, tmp_path, name)
    assert p.returncode == 0, p.stderr[-2000:]
    assert numbers(p.stdout) == expected, p.stdout


def test_customopbuilder_seed_prints_documented_values(seed_dir, tmp_path):
    """out: 12.0; grads[0]: (6, 4); grads[1]: (6,) — the tensors' values, as the seed's check.py reads them."""
    p = run_seed(seed_dir, tmp_path, "test_customopbuilder_function.py")
    assert p.returncode == 0, p.stderr[-2000:]
    lines = dict(line.split(":", 1) for line in p.stdout.splitlines() if ":" in line)
    values = [[float(v) for v in re.findall(r"value=\s*([-+.\deE]+)", lines[key])] or numbers(lines[key])
              for key in ("out", "grads[0]", "grads[1]")]
    assert values == [[12.0], [6.0, 4.0], [6.0]], p.stdout
