"""Issue 11 item 13: kernels that start threads run in the aot worker process; how that is decided, that it
behaves like the in-process path (attributes, Init, InferShape, errors, guard bytes), and that the worker lives no
longer than its host."""
import os
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

from npusim.aot.isolated import IsolatedKernel
from npusim.aot.threads import thread_reason
from npusim.custom.backends.base import CallAttrs
from npusim.errors import AotKernelError, AotOutputOverrunError, OpValueError

from aot_test_support import KERNEL_DIR, kernel_source, make_backend


@pytest.fixture
def isolate_all(monkeypatch):
    monkeypatch.setenv("NPUSIM_AOT_ISOLATION", "always")


def test_libraries_that_start_threads_are_recognised(build_so):
    assert "std::thread" in thread_reason(str(build_so("threaded_crash.cc")))
    assert "OpenMP" in thread_reason(str(build_so("openmp_double.cc", "-fopenmp")))
    assert thread_reason(str(build_so("seed_add.cc"))) == ""
    assert thread_reason(str(build_so("attr_add.cc"))) == ""


def test_threaded_kernels_run_isolated_and_others_in_process(in_kernel_dir):
    threaded = make_backend("threaded_crash.cc:CustomThreadSegfault")
    x = np.arange(6, dtype=np.float32)
    (out,) = threaded.launch([x], CallAttrs(), [x.shape], ["float32"])
    np.testing.assert_array_equal(out, 2 * x)
    assert isinstance(threaded.kernel(), IsolatedKernel)
    assert not isinstance(make_backend("seed_add.cc:CustomAdd").kernel(), IsolatedKernel)


def test_an_unknown_isolation_mode_is_an_error(in_kernel_dir, monkeypatch):
    monkeypatch.setenv("NPUSIM_AOT_ISOLATION", "sometimes")
    with pytest.raises(OpValueError, match="NPUSIM_AOT_ISOLATION='sometimes'"):
        make_backend("seed_add.cc:CustomAdd").kernel()


def test_attributes_init_and_infer_shape_in_the_worker(isolate_all):
    backend = make_backend(kernel_source("reduce_sum.cc") + ":CustomReduceSum")
    x = np.arange(60, dtype=np.float32).reshape(3, 4, 5)
    attrs = CallAttrs(("axis", "keep_dim"), (1, True))
    shapes, dtypes = backend.infer([x.shape], ["float32"], attrs)
    (out,) = backend.launch([x], attrs, shapes, dtypes)
    assert isinstance(backend.kernel(), IsolatedKernel)
    np.testing.assert_allclose(out, x.sum(axis=1, keepdims=True))


def test_errors_come_back_from_the_worker(isolate_all):
    backend = make_backend(kernel_source("failing.cc") + ":CustomReturnSeven")
    x = np.ones(3, np.float32)
    with pytest.raises(AotKernelError, match="CustomReturnSeven") as caught:
        backend.launch([x], CallAttrs(), [x.shape], ["float32"])
    assert caught.value.code == 7


def test_guard_bytes_in_the_worker(isolate_all):
    backend = make_backend(kernel_source("overrun.cc") + ":CustomWritesPastEnd", name="past_end")
    x = np.arange(4, dtype=np.float32)
    with pytest.raises(AotOutputOverrunError, match="'past_end'.*12 bytes past the end of output 0") as caught:
        backend.launch([x], CallAttrs(), [x.shape], ["float32"])
    assert caught.value.bytes_after == 12


HOST_SCRIPT = textwrap.dedent("""
    import sys, numpy as np
    sys.path.insert(0, {tests!r})
    from aot_test_support import make_backend, kernel_source
    from npusim.custom.backends.base import CallAttrs
    backend = make_backend(kernel_source("threaded_crash.cc") + ":CustomThreadSegfault")
    x = np.ones(4, np.float32)
    backend.launch([x], CallAttrs(), [x.shape], ["float32"])
    print(backend.kernel().worker._process.pid, flush=True)
    hung = make_backend(kernel_source("threaded_hang.cc") + ":CustomThreadHangs")
    hung.launch([x], CallAttrs(), [x.shape], ["float32"])   # never returns
""")


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split()[2] != "Z"
    except FileNotFoundError:
        return False


def test_the_worker_ends_with_its_host_even_while_a_kernel_hangs(aot_cache_dir):
    env = dict(os.environ, NPUSIM_CACHE_DIR=str(aot_cache_dir.parent))
    host = subprocess.Popen([sys.executable, "-c", HOST_SCRIPT.format(tests=os.path.dirname(__file__))],
                            stdout=subprocess.PIPE, text=True, env=env, cwd=KERNEL_DIR)
    worker_pid = int(host.stdout.readline())
    time.sleep(1.0)   # the hung call is under way in the worker
    assert _alive(worker_pid)
    host.send_signal(signal.SIGKILL)
    host.wait()
    deadline = time.monotonic() + 15
    while _alive(worker_pid) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not _alive(worker_pid), "the aot worker outlived its host"


def test_with_isolation_off_a_thread_crash_names_the_kernel_before_the_process_dies(aot_cache_dir):
    script = textwrap.dedent(f"""
        import sys, numpy as np
        sys.path.insert(0, {os.path.dirname(__file__)!r})
        from aot_test_support import make_backend, kernel_source
        from npusim.custom.backends.base import CallAttrs
        backend = make_backend(kernel_source("threaded_crash.cc") + ":CustomThreadSegfault", name="threaded")
        backend.launch([np.full(4, 20.0, np.float32)], CallAttrs(), [(4,)], ["float32"])
    """)
    env = dict(os.environ, NPUSIM_CACHE_DIR=str(aot_cache_dir.parent), NPUSIM_AOT_ISOLATION="never")
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=300)
    assert result.returncode == -signal.SIGSEGV
    assert "aot kernel of Custom 'threaded' (CustomThreadSegfault" in result.stderr
    assert "NPUSIM_AOT_ISOLATION=always" in result.stderr


def test_a_forked_child_starts_its_own_worker(isolate_all):
    backend = make_backend(kernel_source("seed_add.cc") + ":CustomAdd")
    x = np.ones((2, 2), np.float32)
    backend.launch([x, x], CallAttrs(), [(2, 2)], ["float32"])
    parent_worker = backend.kernel().worker._process.pid
    read_end, write_end = os.pipe()
    child = os.fork()
    if child == 0:   # the child: its call must work and must not disturb the parent's worker
        try:
            (out,) = backend.launch([x, x], CallAttrs(), [(2, 2)], ["float32"])
            ok = out.tolist() == [[2.0, 2.0], [2.0, 2.0]] and backend.kernel().worker._process.pid != parent_worker
            os.write(write_end, b"ok" if ok else b"bad")
        finally:
            backend.kernel().worker.close()
            os._exit(0)
    os.close(write_end)
    os.waitpid(child, 0)
    assert os.read(read_end, 2) == b"ok"
    (out,) = backend.launch([x, 2 * x], CallAttrs(), [(2, 2)], ["float32"])
    assert out.tolist() == [[3.0, 3.0], [3.0, 3.0]] and backend.kernel().worker._process.pid == parent_worker


def test_every_call_after_an_openmp_crash_works(build_so):
    # whichever OpenMP thread faults first (the worker's calling thread is one of the team), the next call runs on
    # a fresh worker: a team left broken by an unwound crash must never serve another call
    from npusim.errors import AotKernelCrash
    backend = make_backend(f"{build_so('openmp_double.cc', '-fopenmp')}:CustomOmpDouble")
    ones = np.ones(8, np.float32)
    for _ in range(6):
        with pytest.raises(AotKernelCrash):
            backend.launch([np.full(8, 20.0, np.float32)], CallAttrs(), [(8,)], ["float32"])
        (out,) = backend.launch([ones], CallAttrs(), [(8,)], ["float32"])
        np.testing.assert_array_equal(out, 2 * ones)
