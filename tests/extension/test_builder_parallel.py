"""Two pytest-xdist workers build the same extension into the same directory at the same time: build.lock lets
one compile while the other waits, then finds nothing to do; both load the library."""
import os
import subprocess
import sys

import pytest

from builder_testkit import FAST_CFLAGS, binding_source, compile_commands, write

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

WORKER_TESTS = '''
import os
from npusim.extension import CustomOpBuilder

def _build_and_load(tag):
    builder = CustomOpBuilder("shared_ext", ["module.cpp", "value.cpp"], build_dir="build", cflags=%(cflags)r)
    path = builder.build()
    with open(f"log_{tag}_{os.environ.get('PYTEST_XDIST_WORKER', 'none')}.txt", "w") as out:
        out.write(builder.build_log)
    module = builder.load()
    assert module.value() == 7
    assert module.__file__ == path

def test_first():
    _build_and_load("first")

def test_second():
    _build_and_load("second")
'''


def test_two_xdist_workers_build_the_same_extension(tmp_path):
    pytest.importorskip("xdist")
    write(tmp_path / "module.cpp", binding_source())  # seconds to compile: the workers overlap
    write(tmp_path / "value.cpp", "int value() { return 7; }\n")
    write(tmp_path / "test_shared_build.py", WORKER_TESTS % {"cflags": FAST_CFLAGS})
    env = dict(os.environ, PYTHONPATH=REPO + os.pathsep + os.environ.get("PYTHONPATH", ""))
    done = subprocess.run([sys.executable, "-m", "pytest", "-n", "2", "-q", "-p", "no:randomly", "-p",
                           "no:cacheprovider", "test_shared_build.py"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "2 passed" in done.stdout
    logs = sorted(tmp_path.glob("log_*.txt"))
    assert {log.name.split("_")[2] for log in logs} == {"gw0.txt", "gw1.txt"}     # both workers built
    compiled = [compile_commands(log.read_text()) for log in logs]
    assert sorted(len(c) for c in compiled) == [0, 2], [log.read_text() for log in logs]
    ninja_log = (tmp_path / "build" / ".ninja_log").read_text().splitlines()
    outputs = [line.split("\t")[3] for line in ninja_log if not line.startswith("#")]
    assert sorted(outputs) == ["module.o", "shared_ext.so", "value.o"]            # each step ran once
