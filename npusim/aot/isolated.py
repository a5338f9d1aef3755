"""Running aot kernels in a separate worker process (kernels that start threads; see :mod:`npusim.aot.threads`).

:class:`AotWorker` owns one worker process (:mod:`npusim.aot.worker_main`), started on first use and again
after it died; a runtime keeps one (``runtime.resource(WORKER_RESOURCE, AotWorker)``).  :class:`IsolatedKernel`
has the launch / infer_shape interface of the bridge's AotKernel and runs them there:

- inputs are copied into a shared arena (one memfd both processes map), outputs are written there by the kernel
  between guard zones the host fills and checks, then copied out into new arrays;
- a crash that ends the worker becomes AotKernelCrash naming the op, with the worker's crash note (the signal,
  or the what() of an exception that escaped a kernel thread); the next call starts a new worker.

Cost: one request/reply round trip (~50-100 µs) plus copying the tensors, paid only by isolated kernels.
"""
from __future__ import annotations

import mmap
import os
import signal
import socket
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np

from npusim.aot import wire
from npusim.aot.library import bridge
from npusim.errors import AotKernelCrash, KernelRuntimeError

#: the runtime resource holding the process's AotWorker
WORKER_RESOURCE = "aot.worker"
INITIAL_ARENA_BYTES = 1 << 20
WORKER_EXIT_WAIT_SECONDS = 10


class WorkerDied(Exception):
    """The worker ended during a request: ``signal_number`` (0 if it exited) and its crash note."""

    def __init__(self, signal_number: int, exit_code: int, note: str):
        super().__init__(note)
        self.signal_number, self.exit_code, self.note = signal_number, exit_code, note


class AotWorker:
    """One worker process and its arena; requests are serialised (one kernel call at a time).  A forked child of
    the host starts a worker of its own on first use (the inherited one keeps serving the parent)."""

    def __init__(self):
        self._lock = threading.Lock()
        self._owner_pid = os.getpid()
        self._process = None
        self._sock = None
        self._arena_fd = -1
        self._arena = None
        self._loaded: set = set()

    # ---- requests ---------------------------------------------------------------------------------------------
    def call(self, kernel, message_for, arena_bytes: int = 0, before=None, after=None):
        """Send ``message_for(worker)`` after making sure the worker runs, has ``kernel`` loaded and an arena of
        ``arena_bytes``; ``before(arena)`` / ``after(arena)`` run around the request.  Returns the reply's payload;
        raises the worker's exception, or WorkerDied."""
        if self._owner_pid != os.getpid():
            self._lock = threading.Lock()   # a forked child: the parent's lock may have been held at the fork
        with self._lock:
            self._ensure_started()
            self._ensure_arena(arena_bytes)
            if kernel.key not in self._loaded:
                self._request(("load",) + kernel.load_args())
                self._loaded.add(kernel.key)
            if before is not None:
                before(self._arena)
            reply = self._request(message_for(self))
            return reply if after is None else after(self._arena, reply)

    def _request(self, message):
        try:
            wire.send(self._sock, message)
            reply = wire.receive(self._sock)
        except (EOFError, ConnectionError, OSError):
            raise self._died() from None
        except BaseException:   # KeyboardInterrupt mid-call: the worker's state is unknown, start afresh
            self._stop()
            raise
        if reply[0] == "error":
            error = reply[1]
            if isinstance(error, AotKernelCrash):
                # caught on the worker's calling thread: the kernel's other threads (an OpenMP team ...) may be
                # left running or broken, so this worker is done; the next call starts a fresh one
                self._stop()
                error.args = (f"{error.args[0]} (in npusim's aot worker process, which is replaced)",)
            raise error
        return reply[1] if len(reply) > 1 else None

    # ---- process ----------------------------------------------------------------------------------------------
    def _ensure_started(self) -> None:
        if self._owner_pid != os.getpid():
            self._forget_inherited()
        if self._process is not None and self._process.poll() is None:
            return
        self._stop()
        host_end, worker_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        self._arena_fd = os.memfd_create("npusim-aot-arena", os.MFD_CLOEXEC)
        package_root = str(Path(__file__).resolve().parents[2])
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(
            p for p in (package_root, os.environ.get("PYTHONPATH", "")) if p))
        command = [sys.executable, "-m", "npusim.aot.worker_main", str(worker_end.fileno()),
                   str(self._arena_fd), str(os.getpid())]
        self._process = subprocess.Popen(command, pass_fds=(worker_end.fileno(), self._arena_fd),
                                         stdin=subprocess.DEVNULL, env=env)
        worker_end.close()
        self._sock = host_end
        self._loaded = set()

    def _ensure_arena(self, size_bytes: int) -> None:
        wanted = max(INITIAL_ARENA_BYTES, wire.NOTE_BYTES + size_bytes)
        if self._arena is not None and len(self._arena) >= wanted:
            return
        size = 1 << (wanted - 1).bit_length()
        os.ftruncate(self._arena_fd, size)
        self._arena = None
        self._arena = mmap.mmap(self._arena_fd, size)
        self._request(("arena", size))

    def _died(self) -> WorkerDied:
        process = self._process
        try:
            status = process.wait(WORKER_EXIT_WAIT_SECONDS)
        except subprocess.TimeoutExpired:
            process.kill()
            status = process.wait()
        note = self._note()
        self._stop()
        return WorkerDied(-status if status < 0 else 0, status, note)

    def _note(self) -> str:
        if self._arena is None:
            return ""
        raw = bytes(self._arena[:wire.NOTE_BYTES])
        return raw.split(b"\0", 1)[0].decode(errors="replace")

    def _forget_inherited(self) -> None:
        """In a forked child: drop our copies of the parent's connection and arena, leave its worker running."""
        if self._sock is not None:
            self._sock.close()
        if self._arena_fd >= 0:
            os.close(self._arena_fd)
        self._process, self._sock, self._arena, self._arena_fd = None, None, None, -1
        self._loaded = set()
        self._owner_pid = os.getpid()

    def _stop(self) -> None:
        if self._owner_pid != os.getpid():
            self._forget_inherited()
            return
        if self._process is not None and self._process.poll() is None:
            self._process.kill()
            self._process.wait()
        if self._sock is not None:
            self._sock.close()
        if self._arena_fd >= 0:
            os.close(self._arena_fd)
        self._process, self._sock, self._arena, self._arena_fd = None, None, None, -1
        self._loaded = set()

    def close(self) -> None:
        """End the worker (a later call starts a new one)."""
        with self._lock:
            self._stop()

    def __del__(self):
        try:
            self._stop()
        except Exception:   # interpreter shutdown: nothing left to tidy
            pass


class IsolatedKernel:
    """One aot kernel function run by an AotWorker; same launch / infer_shape interface as the bridge's AotKernel.

    ``reason``: why it is isolated (for messages).
    """

    def __init__(self, worker: AotWorker, op_name: str, file_path: str, func_name: str, fixed_attrs: tuple,
                 reason: str):
        self.worker, self.op_name, self.file_path, self.func_name = worker, op_name, file_path, func_name
        self.fixed_attrs, self.reason = fixed_attrs, reason
        self.key = (file_path, func_name, id(self))

    def load_args(self) -> tuple:
        return (self.key, self.op_name, self.file_path, self.func_name, self.fixed_attrs)

    def infer_shape(self, in_shapes: list, in_dtypes: list, attrs) -> tuple:
        message = ("infer", self.key, [tuple(s) for s in in_shapes], list(in_dtypes), _wire_attrs(attrs))
        return self._run(lambda worker: message, self.func_name + "InferShape")

    def launch(self, inputs: list, attrs, out_shapes: list, out_dtypes: list) -> list:
        """Copy ``inputs`` in, run the kernel in the worker, check the output guards, copy the outputs out."""
        arrays = [np.ascontiguousarray(a) for a in inputs]
        layout = _Layout(arrays, out_shapes, out_dtypes)
        message = ("launch", self.key, layout.inputs, _wire_attrs(attrs), layout.outputs)
        return self._run(lambda worker: message, self.func_name, layout.size_bytes,
                         before=lambda arena: layout.fill(arena, arrays),
                         after=lambda arena, _reply: layout.collect(arena, self))

    def _run(self, message_for, function: str, arena_bytes: int = 0, before=None, after=None):
        try:
            return self.worker.call(self, message_for, arena_bytes, before, after)
        except WorkerDied as died:
            raise self._crash(died, function) from None

    def _crash(self, died: WorkerDied, function: str) -> Exception:
        where = f"Custom op '{self.op_name}': {function} in '{self.file_path}'"
        note = f": {died.note}" if died.note else ""
        if died.signal_number:
            name = signal.Signals(died.signal_number).name if died.signal_number in signal.valid_signals() else ""
            return AotKernelCrash(
                f"{where} crashed with signal {died.signal_number} ({name}){note} — on one of the kernel's own "
                f"threads or its calling thread. npusim ran it in a separate worker process ({self.reason}), which "
                "died; your process continues and the next call starts a new worker",
                signal_number=died.signal_number)
        return KernelRuntimeError(f"{where}: the aot worker process running it exited with status "
                                  f"{died.exit_code}{note} (does the kernel call exit()?)")


class _Layout:
    """Where one call's tensors go in the arena: inputs, then each output between guard zones."""

    def __init__(self, arrays, out_shapes, out_dtypes):
        offset = wire.NOTE_BYTES
        self.inputs, self.outputs, self.zones = [], [], []
        for array in arrays:
            offset = wire.aligned(offset)
            self.inputs.append(wire.TensorSlot(offset, tuple(array.shape), array.dtype.name))
            offset += array.nbytes
        for shape, dtype in zip(out_shapes, out_dtypes):
            shape = tuple(int(d) for d in shape)
            nbytes = int(np.prod(shape, dtype=np.int64)) * np.dtype(dtype).itemsize
            front = wire.aligned(offset)
            data = front + wire.FRONT_GUARD_BYTES
            tail = wire.tail_guard_bytes(nbytes)
            self.outputs.append(wire.TensorSlot(data, shape, np.dtype(dtype).name))
            self.zones.append((front, data, data + nbytes, tail))
            offset = data + nbytes + tail
        self.size_bytes = offset

    def fill(self, arena, arrays) -> None:
        raw = np.frombuffer(arena, np.uint8)
        for slot, array in zip(self.inputs, arrays):
            raw[slot.offset:slot.offset + array.nbytes] = array.reshape(-1).view(np.uint8)
        for front, data, end, tail in self.zones:
            raw[front:data] = wire.GUARD_BYTE
            raw[end:end + tail] = wire.GUARD_BYTE

    def collect(self, arena, kernel: IsolatedKernel) -> list:
        raw = np.frombuffer(arena, np.uint8)
        results = []
        for index, (slot, (front, data, end, tail)) in enumerate(zip(self.outputs, self.zones)):
            out = np.empty(slot.shape, slot.dtype)
            out.reshape(-1).view(np.uint8)[:] = raw[data:end]
            before, after = raw[front:data] != wire.GUARD_BYTE, raw[end:end + tail] != wire.GUARD_BYTE
            if before.any() or after.any():
                raise bridge().overrun_error(
                    kernel.op_name, kernel.func_name, kernel.file_path, index, out,
                    int(data - front - np.argmax(before)) if before.any() else 0,
                    int(tail - np.argmax(after[::-1])) if after.any() else 0, wire.FRONT_GUARD_BYTES, tail)
            results.append(out)
        return results


def _wire_attrs(attrs):
    if attrs is None:
        return None
    return wire.WireAttrs(tuple(attrs.names), tuple(attrs.values))
