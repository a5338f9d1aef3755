"""The simulated AI CPU never outlives its host: when the host process is killed (SIGKILL, SIGTERM) while its
worker runs a kernel that never returns, the worker goes too, within seconds, instead of spinning on re-parented
to init (issue 11, item 9)."""
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from aicpu_loader import build_kernel_library
from aicpu_test_support import KERNEL_DIR

LIBRARY = "hung_kernels"
REPO = Path(__file__).resolve().parents[2]
WORKER_COMM = "npusim_aicpu_wo"  # the first 15 characters of the worker's name (/proc/PID/stat)

HOST_SCRIPT = textwrap.dedent("""
    import sys, threading
    import numpy as np
    import npusim.compat  # noqa: F401  (serves `mindspore`)
    from mindspore import Tensor, ops
    from mindspore.ops import CustomRegOp, DataType, custom_info_register

    spin_info = CustomRegOp("SpinForever").input(0, "x").output(0, "y") \\
        .attr("cust_aicpu", "required", "str", "hung_kernels") \\
        .dtype_format(DataType.F32_Default, DataType.F32_Default).target("Ascend").get_op_info()

    @custom_info_register(spin_info)
    def spin_forever():
        \"\"\"Never returns.\"\"\"

    op = ops.Custom(spin_forever, out_shape=lambda x: x, out_dtype=lambda x: x, func_type="aicpu")
    x = Tensor(np.ones(4, np.float32))
    print("calling", flush=True)
    if sys.argv[1] == "thread":
        threading.Thread(target=op, args=(x,)).start()
    else:
        op(x)
""")


@pytest.fixture(scope="module")
def hung_library(tmp_path_factory):
    out = tmp_path_factory.mktemp("hung") / f"lib{LIBRARY}.so"
    return build_kernel_library([KERNEL_DIR / "hung_kernels.cc"], out).path


def _stat(pid: int):
    """(comm, state, ppid, cpu ticks) of a process, or None when it is gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    comm = text[text.index("(") + 1:text.rindex(")")]
    fields = text[text.rindex(")") + 2:].split()
    return comm, fields[0], int(fields[1]), int(fields[11]) + int(fields[12])


def _spinning_worker_of(host_pid: int, deadline: float) -> int:
    """The pid of the host's worker once it has spent CPU time in the kernel."""
    while time.monotonic() < deadline:
        for entry in os.listdir("/proc"):
            info = _stat(int(entry)) if entry.isdigit() else None
            if info and info[0] == WORKER_COMM and info[2] == host_pid and info[3] >= 20:
                return int(entry)
        time.sleep(0.1)
    raise AssertionError(f"host {host_pid} never had a spinning AICPU worker")


def _gone_or_zombie(pid: int, deadline: float) -> bool:
    while time.monotonic() < deadline:
        info = _stat(pid)
        if info is None or info[1] == "Z":
            return True
        time.sleep(0.05)
    return False


@pytest.mark.parametrize("call_from, host_signal", [
    ("main", signal.SIGKILL), ("thread", signal.SIGKILL), ("main", signal.SIGTERM),
])
def test_hung_kernel_worker_dies_with_its_host(hung_library, call_from, host_signal):
    env = dict(os.environ, NPUSIM_AICPU_LIB_PATH=str(hung_library.parent), NPUSIM_AICPU_TIMEOUT_S="600",
               PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])))
    host = subprocess.Popen([sys.executable, "-c", HOST_SCRIPT, call_from], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    worker_pid = None
    try:
        assert host.stdout.readline().strip() == "calling", host.stderr.read()
        worker_pid = _spinning_worker_of(host.pid, time.monotonic() + 60)
        host.send_signal(host_signal)
        host.wait(timeout=30)
        assert _gone_or_zombie(worker_pid, time.monotonic() + 5), \
            f"worker {worker_pid} still alive: {_stat(worker_pid)}"
    finally:
        if host.poll() is None:
            host.kill()
            host.wait()
        if worker_pid is not None and _stat(worker_pid) and _stat(worker_pid)[1] != "Z":
            os.kill(worker_pid, signal.SIGKILL)  # a failed run must not leave a spinning process behind
