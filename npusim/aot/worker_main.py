"""The aot worker: runs aot kernels that start threads of their own, so that their crashes end this process only.

Started by :class:`npusim.aot.isolated.AotWorker` as ``python -m npusim.aot.worker_main SOCKET_FD ARENA_FD
HOST_PID``; speaks the protocol of :mod:`npusim.aot.wire`.  Kernels are loaded and called through the same bridge
as in the host (crashes on the calling thread still become errors here); a crash on one of the kernel's threads
ends the worker after its handlers left a note in the arena.  The worker exits when its host goes away (the
connection closes, or a watchdog sees the host's pid change while a kernel hangs).
"""
from __future__ import annotations

import mmap
import os
import socket
import sys
import threading
import time

import numpy as np

from npusim.aot import wire
from npusim.aot.library import bridge, load_library
from npusim.errors import AotKernelCrash

WATCHDOG_PERIOD_SECONDS = 1.0
#: exit status after a kernel crash caught on the calling thread was reported
CRASHED_EXIT_CODE = 70


class Worker:
    """The worker's state: the arena mapping and the loaded kernels by the host's key."""

    def __init__(self, arena_fd: int):
        self.arena_fd = arena_fd
        self.arena = None
        self.kernels = {}

    def handle(self, message):
        kind = message[0]
        if kind == "arena":
            return self.map_arena(message[1])
        if kind == "load":
            return self.load(*message[1:])
        if kind == "infer":
            key, in_shapes, in_dtypes, attrs = message[1:]
            return ("ok", self.kernels[key].infer_shape(list(in_shapes), list(in_dtypes), attrs))
        if kind == "launch":
            return self.launch(*message[1:])
        raise ValueError(f"the aot worker got an unknown request {kind!r}")

    def map_arena(self, size_bytes: int):
        self.arena = None   # views of the old mapping are gone: each call drops its own
        self.arena = mmap.mmap(self.arena_fd, size_bytes)
        note = np.frombuffer(self.arena, np.uint8, wire.NOTE_BYTES)
        bridge().register_crash_note(note.ctypes.data, wire.NOTE_BYTES)
        return ("ok",)

    def load(self, key, op_name, path, func_name, fixed_attrs):
        library = load_library(path, op_name)
        self.kernels[key] = bridge().AotKernel(
            op_name, library.path, func_name, library.require(func_name, op_name),
            library.symbol(func_name + "Init"), library.symbol(func_name + "InferShape"),
            library.cxx11_abi, fixed_attrs)
        return ("ok",)

    def launch(self, key, inputs, attrs, outputs):
        in_views = [self.view(slot) for slot in inputs]
        out_views = [self.view(slot) for slot in outputs]
        self.kernels[key].launch_into(in_views, attrs, out_views)
        return ("ok",)

    def view(self, slot: wire.TensorSlot) -> np.ndarray:
        count = int(np.prod(slot.shape, dtype=np.int64))
        return np.frombuffer(self.arena, slot.dtype, count, slot.offset).reshape(slot.shape)


def _watch_host(host_pid: int) -> None:
    """End the worker when its host is gone, even while a kernel call hangs (the bridge releases the GIL)."""
    while True:
        time.sleep(WATCHDOG_PERIOD_SECONDS)
        if os.getppid() != host_pid:
            os._exit(0)


def serve(sock, worker: Worker) -> int:
    while True:
        try:
            message = wire.receive(sock)
        except (EOFError, ConnectionError):
            return 0
        crashed = False
        try:
            reply = worker.handle(message)
        except Exception as error:  # every failure goes back to the host, which raises it for the op
            reply, crashed = ("error", error), isinstance(error, AotKernelCrash)
        try:
            wire.send(sock, reply)
        except Exception as error:   # e.g. an exception that cannot be pickled
            wire.send(sock, ("error", RuntimeError(f"{type(error).__name__}: {error}")))
        if crashed:   # the kernel's other threads may still run on a broken state: end here (the host restarts us)
            os._exit(CRASHED_EXIT_CODE)


def main(argv) -> int:
    socket_fd, arena_fd, host_pid = (int(arg) for arg in argv[1:4])
    threading.Thread(target=_watch_host, args=(host_pid,), daemon=True, name="npusim-aot-watchdog").start()
    sock = socket.socket(fileno=socket_fd)
    return serve(sock, Worker(arena_fd))


if __name__ == "__main__":
    sys.exit(main(sys.argv))
