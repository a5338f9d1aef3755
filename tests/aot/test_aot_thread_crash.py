"""Issue 11 item 13: a crash on a kernel's own thread (std::thread, OpenMP) becomes AotKernelCrash naming the op;
the interpreter survives and later calls of the op work.

Each scenario runs as a user script in a fresh interpreter, so a regression shows up as a failed test (the script
dies) instead of taking the test session down.
"""
import os
import subprocess
import sys
import textwrap


from aot_test_support import KERNEL_DIR

USER_SCRIPT = textwrap.dedent("""
    import numpy as np
    import npusim.compat  # noqa: F401
    import mindspore.ops as ops
    from mindspore import Tensor
    from npusim.errors import AotKernelCrash

    op = ops.Custom({func!r}, out_shape=lambda x: x, out_dtype=lambda x: x, func_type="aot")
    print("first", op(Tensor(np.arange(8, dtype=np.float32))).asnumpy().tolist())
    try:
        op(Tensor(np.full(8, 20.0, np.float32)))
    except AotKernelCrash as crash:
        print("crash", crash.signal_number, crash)
    print("after", op(Tensor(np.ones(8, np.float32))).asnumpy().tolist())
""")


def _run_user_script(func, cache_dir, extra_env=None):
    env = dict(os.environ, NPUSIM_CACHE_DIR=str(cache_dir), **(extra_env or {}))
    result = subprocess.run([sys.executable, "-c", USER_SCRIPT.format(func=func)], cwd=KERNEL_DIR, env=env,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, f"the interpreter died (exit {result.returncode}):\n{result.stderr[-3000:]}"
    lines = result.stdout.splitlines()
    assert lines[0] == "first " + str([2.0 * i for i in range(8)])
    assert lines[-1] == "after " + str([2.0] * 8)
    return lines[1]


def test_segfault_on_a_std_thread_becomes_an_error(aot_cache_dir):
    crash = _run_user_script("threaded_crash.cc:CustomThreadSegfault", aot_cache_dir.parent)
    assert crash.startswith("crash 11 ")
    assert "CustomThreadSegfault" in crash and "thread" in crash


def test_exception_escaping_a_kernel_thread_becomes_an_error(aot_cache_dir):
    crash = _run_user_script("threaded_crash.cc:CustomThreadThrows", aot_cache_dir.parent)
    assert crash.startswith("crash 6 ")
    assert "CustomThreadThrows" in crash
    assert "value out of range on a worker thread" in crash  # the exception's what() reaches the user


def test_segfault_in_an_openmp_region_becomes_an_error(build_so, aot_cache_dir):
    library = build_so("openmp_double.cc", "-fopenmp")
    crash = _run_user_script(f"{library}:CustomOmpDouble", aot_cache_dir.parent)
    assert crash.startswith("crash 11 ") and "CustomOmpDouble" in crash


def test_isolation_can_be_forced_for_a_single_threaded_kernel(aot_cache_dir):
    # CustomSegfaultWhenBig crashes on the calling thread; run out of process on request it behaves the same
    crash = _run_user_script("crashing.cc:CustomSegfaultWhenBig", aot_cache_dir.parent,
                             {"NPUSIM_AOT_ISOLATION": "always"})
    assert crash.startswith("crash 11 ") and "CustomSegfaultWhenBig" in crash
