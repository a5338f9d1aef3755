"""The simulated AI CPU: a separate worker process that runs AICPU kernels on shared-memory tensors.

Like the real device, kernels never run inside the Python process: a crash (segfault, abort, exit) kills only the
worker and surfaces as :class:`~npusim.errors.AicpuKernelCrashError` naming the op, the library and the signal;
the next call starts a fresh worker.  A call that outlives its timeout kills the worker
(:class:`~npusim.errors.AicpuTimeoutError`).

Transport: a SOCK_SEQPACKET socketpair carries small requests and replies (protocol in
``src/worker/worker_main.cc``); tensors, the encoded request and the kernel's log live in one memfd mapped by
both processes and kept mapped between calls (layout in plan.py; it grows on demand and is handed to the worker
with SCM_RIGHTS).  The worker's main thread follows the caller's CPU (see :func:`pinning_enabled`).

The worker never outlives this process: it ends itself when our end of the socket closes, even in the middle of
a hung kernel (and, when started from the main thread, by parent-death signal as well).

Per call the client only copies the inputs in, sends one small datagram, blocks in recv (the timeout is the
socket's SO_RCVTIMEO, so no poll() precedes each send and recv) and copies the outputs out; what a plan's replies
decode to is cached on the plan while they repeat.  A library rebuilt at the same path is noticed by the worker
(it re-stats the path on every call and answers STALE), and the call is re-sent to a fresh worker.
"""
from __future__ import annotations

import ctypes
import itertools
import math
import mmap
import os
import socket
import struct
import subprocess
import threading
import weakref
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from aicpu_loader import build, failures, protocol
from aicpu_loader.failures import REP_DONE, REP_LISTED, REP_MAPPED, REP_STALE
from aicpu_loader.plan import (  # noqa: F401  (OutputSpec is part of this module's API)
    LOG_CAPACITY, LOG_OFFSET, LOG_SIZE_OFFSET, CallPlan, OutputSpec, plan_call,
)
from npusim import errors

INITIAL_SHM_BYTES = 1 << 20
DEFAULT_TIMEOUT_S = 120.0

_REQ_MAP, _REQ_LIST, _REQ_EXIT = 2, 3, 4  # and REQ_CALL (plan.py builds each plan's CALL message)
_REPLY_HEAD = struct.Struct("<IIIII")
_U32 = struct.Struct("<I")
_U64 = struct.Struct("<Q")
_TIMEVAL = struct.Struct("@ll")
#: shared-memory mappings are numbered across all workers, so a plan's cached views name exactly one mapping
_mapping_ids = itertools.count(1)


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
        parent.settimeout(None)  # blocking even under socket.setdefaulttimeout: timeouts are SO_RCVTIMEO
        env = dict(os.environ, NPUSIM_AICPU_CPUS=",".join(map(str, sorted(os.sched_getaffinity(0)))))
        args = [executable, str(child.fileno())]
        if threading.current_thread() is threading.main_thread():
            args.append(str(os.getpid()))  # the worker also dies with us by parent-death signal (see worker_main.cc)
        try:
            self.popen = subprocess.Popen(args, pass_fds=(child.fileno(),), stdin=subprocess.DEVNULL, env=env)
        except OSError as exc:
            parent.close()
            raise errors.AicpuWorkerError(f"cannot start the AICPU worker {executable}: {exc}") from exc
        finally:
            child.close()
        self.sock = parent
        self.owner_pid = os.getpid()
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
        """Bound the wait for a reply (SO_RCVTIMEO: recv fails with EAGAIN); an infinite timeout waits forever."""
        if timeout_s != self.timeout_s:
            if math.isinf(timeout_s):
                seconds, micros = 0, 0
            else:
                seconds, micros = divmod(max(1, round(timeout_s * 1e6)), 1_000_000)  # 0 would mean forever
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVTIMEO, _TIMEVAL.pack(seconds, micros))
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
        self._pin = pinning_enabled()
        self._reply = bytearray(1 << 19)
        self._reply_view = memoryview(self._reply)
        _live_workers.add(self)

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

    def _after_fork_in_child(self) -> None:
        """A forked child never talks to the parent's worker nor writes the parent's shared memory."""
        self._lock = threading.Lock()  # another parent thread may have held it at the fork
        self._drop_process(graceful=True)  # only closes our copy of the socket (_Process.owner_pid differs)
        self._drop_shm()  # unmaps and closes the child's copies only

    def _ensure(self, needed_bytes: int) -> _Process:
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
        self._shm_epoch = next(_mapping_ids)
        if self._proc is not None:
            self._send_map(self._proc)

    def _send_map(self, proc: _Process) -> None:
        message = struct.pack("<IIQQQQ", _REQ_MAP, 0, self._shm_size, LOG_SIZE_OFFSET, LOG_OFFSET, LOG_CAPACITY)
        proc.set_timeout(self.timeout_s)
        socket.send_fds(proc.sock, [message], [self._shm_fd])
        self._receive(proc, "mapping shared memory", "", "", self.timeout_s)
        kind, _, _, result_size, message_size = _REPLY_HEAD.unpack_from(self._reply)
        if kind != REP_MAPPED:
            raise errors.AicpuWorkerError(f"the AICPU worker could not map the shared memory: "
                                          f"{self._reply_text(result_size, message_size)}")

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
        proc = self._proc
        if proc is None or plan.end_bytes > self._shm_size or proc.popen.returncode is not None:
            proc = self._ensure(plan.end_bytes)
        mm = self._mm
        if plan.views_epoch != self._shm_epoch:
            plan.bind(mm, self._shm_epoch)
        for view, array in zip(plan.views, inputs):
            if view is not None:
                view[...] = array
        mm[plan.request_offset:plan.end_bytes] = plan.request
        if self._pin:
            proc.follow_caller_cpu()
        proc = self._exchange(proc, plan.message, plan.end_bytes, timeout_s, "running", plan.op_type, plan.library)
        kind, status, runtime_status, result_size, message_size = _REPLY_HEAD.unpack_from(self._reply)
        log_lines = self._log_lines() if _U64.unpack_from(mm, LOG_SIZE_OFFSET)[0] else ()
        if kind == REP_DONE and not status and not runtime_status:
            start = _REPLY_HEAD.size
            result = self._reply[start:start + result_size]
            if result != plan.last_result:
                self._decode_outputs(plan, result)
            return CallResult([view.copy() for view in plan.out_views], log_lines)
        message = self._reply_text(result_size, message_size)
        if kind != REP_DONE:
            raise failures.reply_error(kind, message, plan.op_type, plan.library)
        if runtime_status == failures.RT_OUTPUT_OVERRUN:
            result = bytes(self._reply_view[_REPLY_HEAD.size:_REPLY_HEAD.size + result_size])
            raise failures.overrun_error(result, [s.size_bytes for s in plan.outputs], plan.op_type, plan.library,
                                         log_lines)
        if runtime_status:
            raise failures.runtime_error(runtime_status, message, plan.op_type, plan.library, log_lines)
        raise failures.status_error(status, plan.op_type, plan.library, log_lines)

    def _exchange(self, proc: _Process, message: bytes, needed_bytes: int, timeout_s: float, doing: str,
                  op_type: str, library: str) -> _Process:
        """Send ``message`` and wait for the reply (left in ``self._reply``); the process that answered.

        A worker that died between calls (killed from outside) is replaced and the request sent again; so is one
        that answers STALE (a library it loaded was rebuilt at the same path).
        """
        for attempt in range(3):
            if timeout_s != proc.timeout_s:
                proc.set_timeout(timeout_s)
            try:
                proc.sock.send(message)
            except OSError:  # the worker died between calls (killed from outside): start another, send again
                return_code = proc.reap()
                self._proc = None
                if attempt:
                    raise failures.crash_error(return_code, doing, op_type, library, ()) from None
                proc = self._ensure(needed_bytes)
                continue
            self._receive(proc, doing, op_type, library, timeout_s)
            if _U32.unpack_from(self._reply)[0] != REP_STALE:
                return proc
            self._drop_process(graceful=True)
            proc = self._ensure(needed_bytes)
        raise errors.AicpuLibraryLoadError(f"kernel library {library} keeps changing while AICPU op '{op_type}' "
                                           f"loads it", library=library)

    def _decode_outputs(self, plan: CallPlan, result: bytearray) -> None:
        """Cache on ``plan`` the output views a reply's result bytes describe (shape and dtype the kernel left)."""
        views = []
        for described, slot in zip(protocol.decode_results(result, len(plan.outputs)), plan.outputs):
            dtype = slot.dtype
            if described.dtype_code != slot.dtype_code:  # the kernel changed the output's data type
                dtype_name = protocol.CODE_DTYPES.get(described.dtype_code)
                if dtype_name is None:
                    raise errors.AicpuRuntimeError(
                        f"AICPU op '{plan.op_type}' ({plan.library}) set an output to data type "
                        f"{described.dtype_code}, which has no numpy equivalent", op_type=plan.op_type,
                        library=plan.library)
                dtype = np.dtype(dtype_name)
            views.append(np.ndarray(described.dims, dtype, buffer=self._mm, offset=slot.offset))
        plan.out_views = tuple(views)
        plan.last_result = bytes(result)

    def list_kernels(self, library: str) -> list[str]:
        """Op types the library at ``library`` registers (loaded in the worker, so a bad library cannot crash us)."""
        with self._lock:
            proc = self._ensure(0)
            _U64.pack_into(self._mm, LOG_SIZE_OFFSET, 0)
            path = library.encode()
            message = struct.pack("<II", _REQ_LIST, len(path)) + path
            self._exchange(proc, message, 0, self.timeout_s, "listing kernels", "", library)
            kind, _, _, result_size, message_size = _REPLY_HEAD.unpack_from(self._reply)
            text = self._reply_text(result_size, message_size)
            if kind != REP_LISTED:
                raise failures.reply_error(kind, text, "", library)
            return [line for line in text.splitlines() if line]

    # ---- replies and failures ----------------------------------------------------------------------------------
    def _receive(self, proc: _Process, doing: str, op_type: str, library: str, timeout_s: float) -> None:
        """Wait for the reply to the request just sent (into ``self._reply``); typed errors for a timeout or a
        worker that died."""
        try:
            size = proc.sock.recv_into(self._reply)
        except BlockingIOError:  # SO_RCVTIMEO expired
            self._drop_process(graceful=False)
            raise failures.timeout_error(timeout_s, op_type, library, self._log_lines()) from None
        except OSError:
            size = 0
        except BaseException:  # e.g. KeyboardInterrupt: the reply would answer the next request; drop the worker
            self._drop_process(graceful=False)
            raise
        if size == 0:
            self._proc = None
            raise failures.crash_error(proc.reap(), doing, op_type, library, self._log_lines())

    def _reply_text(self, result_size: int, message_size: int) -> str:
        start = _REPLY_HEAD.size + result_size
        return bytes(self._reply_view[start:start + message_size]).decode(errors="replace")

    def _log_lines(self) -> tuple:
        if self._mm is None:
            return ()
        size = min(_U64.unpack_from(self._mm, LOG_SIZE_OFFSET)[0], LOG_CAPACITY)
        if not size:
            return ()
        return tuple(self._mm[LOG_OFFSET:LOG_OFFSET + size].decode(errors="replace").splitlines())


_live_workers: "weakref.WeakSet[AicpuWorker]" = weakref.WeakSet()


def _forget_parent_workers() -> None:
    for worker in list(_live_workers):
        worker._after_fork_in_child()


os.register_at_fork(after_in_child=_forget_parent_workers)


# ---- the worker a runtime store shares (a runtime resource, stopped when the store closes: at exit) ----------------
#: the runtime resource name of the shared worker
WORKER_RESOURCE = "aicpu.worker"


def default_worker(runtime=None) -> AicpuWorker:
    """The worker AICPU Custom ops of ``runtime``'s store share (None: the current runtime's), created on first use
    and stopped at exit."""
    if runtime is None:
        from npusim.sim.runtime import current_runtime
        runtime = current_runtime()
    return runtime.resource(WORKER_RESOURCE, AicpuWorker)


def shutdown_default_worker(runtime=None) -> None:
    """Stop the shared worker of ``runtime``'s store (None: the current runtime's); the next call starts a new one."""
    if runtime is None:
        from npusim.sim.runtime import current_runtime
        runtime = current_runtime()
    worker = runtime.store.drop_resource(WORKER_RESOURCE)
    if worker is not None:
        worker.close()
