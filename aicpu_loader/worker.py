"""The simulated AI CPU: a separate worker process that runs AICPU kernels on shared-memory tensors.

Like the real device, kernels never run inside the Python process: a crash (segfault, abort, exit) kills only the
worker and surfaces as :class:`~npusim.errors.AicpuKernelCrashError` naming the op, the library and the signal;
the next call starts a fresh worker.  A call that outlives its timeout kills the worker
(:class:`~npusim.errors.AicpuTimeoutError`).

Transport: a SOCK_SEQPACKET socketpair carries small requests and replies (protocol in
``src/worker/worker_main.cc``); tensors, the encoded request and the kernel's log live in one memfd mapped by
both processes and kept mapped between calls (layout in plan.py; it grows on demand and is handed to the worker
with SCM_RIGHTS).  The worker's main thread follows the caller's CPU (see :func:`pinning_enabled`).
"""
from __future__ import annotations

import atexit
import ctypes
import mmap
import os
import socket
import struct
import subprocess
import threading
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from aicpu_loader import build, failures, protocol
from aicpu_loader.failures import REP_DONE, REP_LISTED, REP_MAPPED
from aicpu_loader.plan import (  # noqa: F401  (OutputSpec is part of this module's API)
    LOG_CAPACITY, LOG_OFFSET, LOG_SIZE_OFFSET, CallPlan, OutputSpec, plan_call,
)
from npusim import errors

INITIAL_SHM_BYTES = 1 << 20
DEFAULT_TIMEOUT_S = 120.0

_REQ_CALL, _REQ_MAP, _REQ_LIST, _REQ_EXIT = 1, 2, 3, 4
_REPLY_HEAD = struct.Struct("<IIIII")
_CALL_HEAD = struct.Struct("<IIQQ")
_U64 = struct.Struct("<Q")


def _load_sched_getcpu():
    try:
        return ctypes.CDLL(None, use_errno=True).sched_getcpu
    except (OSError, AttributeError):
        return None


_sched_getcpu = _load_sched_getcpu()


def pinning_enabled() -> bool:
    """Whether the worker's main thread follows the caller's CPU (``$NPUSIM_AICPU_PIN``, default on).

    Handing a request to a process sleeping on another core costs ~35 µs per direction on small VMs (an
    inter-processor wake-up); on the caller's own core the blocked caller yields straight to the worker (~5 µs).
    Kernel threads (ParallelFor) are not pinned: they widen their affinity to ``$NPUSIM_AICPU_CPUS``.
    """
    return _sched_getcpu is not None and os.environ.get("NPUSIM_AICPU_PIN", "1") != "0"


def default_timeout_s() -> float:
    """``$NPUSIM_AICPU_TIMEOUT_S`` or 120 s: how long one kernel call may run."""
    value = os.environ.get("NPUSIM_AICPU_TIMEOUT_S")
    return float(value) if value else DEFAULT_TIMEOUT_S


@dataclass(frozen=True)
class CallResult:
    """Outputs (fresh arrays, shaped as the kernel left them) and the lines the kernel logged."""

    outputs: list
    log_lines: tuple


class _Process:
    """One running worker: the child process and our end of its socket."""

    def __init__(self, executable: str):
        parent, child = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        env = dict(os.environ, NPUSIM_AICPU_CPUS=",".join(map(str, sorted(os.sched_getaffinity(0)))))
        try:
            self.popen = subprocess.Popen([executable, str(child.fileno())], pass_fds=(child.fileno(),),
                                          stdin=subprocess.DEVNULL, env=env)
        except OSError as exc:
            parent.close()
            raise errors.AicpuWorkerError(f"cannot start the AICPU worker {executable}: {exc}") from exc
        finally:
            child.close()
        self.sock = parent
        self.owner_pid = os.getpid()
        self.loaded: dict[str, tuple] = {}  # library path → (dev, inode, mtime, size) when first loaded
        self.pinned_cpu = -1
        self.timeout_s = None

    def follow_caller_cpu(self) -> None:
        """Keep the worker's main thread on the CPU the calling thread runs on (see pinning_enabled)."""
        cpu = _sched_getcpu()
        if cpu != self.pinned_cpu and cpu >= 0:
            try:
                os.sched_setaffinity(self.popen.pid, {cpu})
                self.pinned_cpu = cpu
            except OSError:  # the worker may be exiting; the call will report that
                pass

    def set_timeout(self, timeout_s: float) -> None:
        if timeout_s != self.timeout_s:
            self.sock.settimeout(timeout_s)
            self.timeout_s = timeout_s

    def close(self, timeout_s: float = 2.0) -> None:
        if self.owner_pid != os.getpid():  # inherited through fork: the parent's worker, leave it alone
            self.sock.close()
            return
        try:
            self.sock.send(struct.pack("<I", _REQ_EXIT))
        except OSError:
            pass
        self.sock.close()
        try:
            self.popen.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            self.popen.kill()
            self.popen.wait()

    def kill(self) -> None:
        self.popen.kill()
        self.popen.wait()
        self.sock.close()

    def reap(self) -> int:
        """Wait for a worker whose socket closed; its return code (negative: the killing signal)."""
        try:
            code = self.popen.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.popen.kill()
            code = self.popen.wait()
        self.sock.close()
        return code


class AicpuWorker:
    """Client of one simulated AI CPU worker process (started on first use, restarted after a crash).

    Thread-safe: calls are serialized.  ``executable`` defaults to the built ``npusim_aicpu_worker``.
    """

    def __init__(self, timeout_s: float | None = None, executable: str | None = None):
        self.timeout_s = default_timeout_s() if timeout_s is None else timeout_s
        self._executable = executable
        self._lock = threading.Lock()
        self._proc: _Process | None = None
        self._shm_fd = -1
        self._mm: mmap.mmap | None = None
        self._shm_size = 0
        self._shm_epoch = 0
        self._shm_pid = -1
        self._pin = pinning_enabled()
        self._reply = bytearray(1 << 19)
        self._reply_view = memoryview(self._reply)

    # ---- lifecycle ---------------------------------------------------------------------------------------------
    @property
    def pid(self) -> int | None:
        """The worker's process id (None before the first call or after a crash)."""
        return self._proc.popen.pid if self._proc is not None else None

    def close(self) -> None:
        """Stop the worker and unmap the shared memory."""
        with self._lock:
            self._drop_process(graceful=True)
            self._drop_shm()

    def _drop_process(self, graceful: bool) -> None:
        if self._proc is not None:
            self._proc.close() if graceful else self._proc.kill()
            self._proc = None

    def _drop_shm(self) -> None:
        if self._mm is not None:
            self._mm.close()
            self._mm = None
        if self._shm_fd >= 0:
            os.close(self._shm_fd)
            self._shm_fd = -1
        self._shm_size = 0

    def _ensure(self, needed_bytes: int) -> _Process:
        if self._shm_pid != os.getpid():  # first use, or we are a forked child: never share the parent's memory
            if self._proc is not None:
                self._proc.close()
                self._proc = None
            self._mm, self._shm_fd, self._shm_size = None, -1, 0
            self._shm_pid = os.getpid()
        if self._mm is None or needed_bytes > self._shm_size:
            self._grow(needed_bytes)
        if self._proc is None or self._proc.popen.returncode is not None:
            executable = self._executable or str(build.worker_executable())
            self._proc = _Process(executable)
            self._send_map(self._proc)
        return self._proc

    def _grow(self, needed_bytes: int) -> None:
        size = max(INITIAL_SHM_BYTES, self._shm_size)
        while size < needed_bytes:
            size *= 2
        self._drop_shm()
        self._shm_fd = os.memfd_create("npusim-aicpu", os.MFD_CLOEXEC)
        os.ftruncate(self._shm_fd, size)
        self._mm = mmap.mmap(self._shm_fd, size)
        self._shm_size = size
        self._shm_epoch += 1
        if self._proc is not None:
            self._send_map(self._proc)

    def _send_map(self, proc: _Process) -> None:
        message = struct.pack("<IIQQQQ", _REQ_MAP, 0, self._shm_size, LOG_SIZE_OFFSET, LOG_OFFSET, LOG_CAPACITY)
        proc.set_timeout(self.timeout_s)
        socket.send_fds(proc.sock, [message], [self._shm_fd])
        kind, _, _, text = self._receive(proc, "mapping shared memory", "", "", self.timeout_s)
        if kind != REP_MAPPED:
            raise errors.AicpuWorkerError(f"the AICPU worker could not map the shared memory: {text}")

    # ---- calls -------------------------------------------------------------------------------------------------
    def call(self, library: str, op_type: str, inputs: Sequence[np.ndarray], outputs: Sequence[OutputSpec],
             attrs_blob: bytes = b"", n_attrs: int = 0, input_formats: Sequence[int] | None = None,
             timeout_s: float | None = None) -> CallResult:
        """Plan and run one call (see :func:`aicpu_loader.plan.plan_call` and :meth:`run`)."""
        plan = plan_call(library, op_type, [(a.shape, a.dtype) for a in inputs], outputs, attrs_blob, n_attrs,
                         input_formats)
        return self.run(plan, inputs, timeout_s)

    def run(self, plan: CallPlan, inputs: Sequence[np.ndarray], timeout_s: float | None = None) -> CallResult:
        """Run a planned call on ``inputs`` (shaped and typed as planned; copied into the shared memory).

        Returns fresh arrays shaped as the kernel left them.  Raises the AicpuKernelError family, or
        AicpuLibraryLoadError / AicpuOpNotFoundError.
        """
        with self._lock:
            return self._run_locked(plan, inputs, self.timeout_s if timeout_s is None else timeout_s)

    def _run_locked(self, plan: CallPlan, inputs, timeout_s: float) -> CallResult:
        proc = self._fresh_for(self._ensure(plan.end_bytes), plan.library)
        mm = self._mm
        if plan.views_epoch != self._shm_epoch:
            plan.views = tuple(np.ndarray(s.shape, s.dtype, buffer=mm, offset=s.offset) if s.size_bytes else None
                               for s in plan.inputs)
            plan.views_epoch = self._shm_epoch
        for view, array in zip(plan.views, inputs):
            if view is not None:
                view[...] = array
        mm[plan.request_offset:plan.end_bytes] = plan.request
        _U64.pack_into(mm, LOG_SIZE_OFFSET, 0)
        path = plan.library.encode()
        if self._pin:
            proc.follow_caller_cpu()
        proc.set_timeout(timeout_s)
        message = _CALL_HEAD.pack(_REQ_CALL, len(path), plan.request_offset, len(plan.request)) + path
        try:
            proc.sock.send(message)
        except OSError:  # the worker died between calls (killed from outside): start another, send again
            proc.reap()
            self._proc = None
            proc = self._ensure(plan.end_bytes)
            proc.set_timeout(timeout_s)
            proc.sock.send(message)
        kind, status, runtime_status, payload = self._receive(proc, "running", plan.op_type, plan.library, timeout_s)
        log_lines = self._log_lines()
        if kind != REP_DONE:
            raise failures.reply_error(kind, payload, plan.op_type, plan.library)
        if plan.library not in proc.loaded:
            proc.loaded[plan.library] = _file_signature(plan.library)
        if runtime_status:
            message = bytes(payload[1]).decode(errors="replace")
            raise failures.runtime_error(runtime_status, message, plan.op_type, plan.library, log_lines)
        if status:
            raise failures.status_error(status, plan.op_type, plan.library, log_lines)
        results = protocol.decode_results(payload[0], len(plan.outputs))
        return CallResult([self._read_output(r, s, plan) for r, s in zip(results, plan.outputs)], log_lines)

    def list_kernels(self, library: str) -> list[str]:
        """Op types the library at ``library`` registers (loaded in the worker, so a bad library cannot crash us)."""
        with self._lock:
            proc = self._fresh_for(self._ensure(0), library)
            path = library.encode()
            proc.set_timeout(self.timeout_s)
            proc.sock.send(struct.pack("<II", _REQ_LIST, len(path)) + path)
            kind, _, _, payload = self._receive(proc, "listing kernels", "", library, self.timeout_s)
            if kind != REP_LISTED:
                raise failures.reply_error(kind, payload, "", library)
            proc.loaded.setdefault(library, _file_signature(library))
            return [line for line in payload.splitlines() if line]

    def _fresh_for(self, proc: _Process, library: str) -> _Process:
        """A worker that has not loaded an older file at ``library`` (dlopen would keep serving the old one)."""
        known = proc.loaded.get(library)
        if known is not None:
            try:
                current = _file_signature(library)
            except OSError as exc:
                raise errors.AicpuLibraryLoadError(f"kernel library {library} is gone: {exc}",
                                                   library=library) from exc
            if known != current:
                self._drop_process(graceful=True)
                proc = self._ensure(0)
        return proc

    def _read_output(self, result: protocol.OutputResult, slot, plan: CallPlan) -> np.ndarray:
        dtype = slot.dtype
        if result.dtype_code != slot.dtype_code:  # the kernel changed the output's data type
            dtype_name = protocol.CODE_DTYPES.get(result.dtype_code)
            if dtype_name is None:
                raise errors.AicpuRuntimeError(
                    f"AICPU op '{plan.op_type}' ({plan.library}) set an output to data type {result.dtype_code}, "
                    f"which has no numpy equivalent", op_type=plan.op_type, library=plan.library)
            dtype = np.dtype(dtype_name)
        return np.ndarray(result.dims, dtype, buffer=self._mm, offset=slot.offset).copy()

    # ---- replies and failures ----------------------------------------------------------------------------------
    def _receive(self, proc: _Process, doing: str, op_type: str, library: str, timeout_s: float):
        """(kind, kernel status, runtime status, payload): payload is (result, message) memoryviews for DONE
        replies and the message text otherwise."""
        try:
            size = proc.sock.recv_into(self._reply)
        except socket.timeout:
            self._drop_process(graceful=False)
            raise failures.timeout_error(timeout_s, op_type, library, self._log_lines()) from None
        except OSError:
            size = 0
        if size == 0:
            self._proc = None
            raise failures.crash_error(proc.reap(), doing, op_type, library, self._log_lines())
        kind, status, runtime_status, result_size, message_size = _REPLY_HEAD.unpack_from(self._reply, 0)
        start = _REPLY_HEAD.size
        message = self._reply_view[start + result_size:start + result_size + message_size]
        if kind != REP_DONE:
            return kind, 0, 0, bytes(message).decode(errors="replace")
        return kind, status, runtime_status, (self._reply_view[start:start + result_size], message)

    def _log_lines(self) -> tuple:
        if self._mm is None:
            return ()
        size = min(_U64.unpack_from(self._mm, LOG_SIZE_OFFSET)[0], LOG_CAPACITY)
        if not size:
            return ()
        return tuple(self._mm[LOG_OFFSET:LOG_OFFSET + size].decode(errors="replace").splitlines())


def _file_signature(path: str) -> tuple:
    st = os.stat(path)
    return (st.st_dev, st.st_ino, st.st_mtime_ns, st.st_size)


# ---- the process-wide default worker (an explicit, resettable cache) -----------------------------------------------
_default_worker: AicpuWorker | None = None
_default_lock = threading.Lock()


def default_worker() -> AicpuWorker:
    """The worker AICPU Custom ops share (one per process, created on first use, stopped at exit)."""
    global _default_worker
    with _default_lock:
        if _default_worker is None:
            _default_worker = AicpuWorker()
        return _default_worker


def shutdown_default_worker() -> None:
    """Stop the shared worker (the next default_worker() call starts a new one)."""
    global _default_worker
    with _default_lock:
        worker, _default_worker = _default_worker, None
    if worker is not None:
        worker.close()


atexit.register(shutdown_default_worker)
