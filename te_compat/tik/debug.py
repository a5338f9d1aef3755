"""``tik_instance.tikdb``: run a built TIK kernel on the simulator with numpy inputs (``start_debug``).

Feed checks are TIK's: the feed_dict keys must be the BuildCCE input tensors' and InputScalars' names ("BuildCCE
input list is [...], but feed_dict list is [...]"), each array must have the tensor's shape and dtype exactly ("x
input shape mismatch"), an InputScalar takes a Python int (int dtypes, in range) or float.  Outputs and workspaces
start as random bytes from a fixed seed (repeatable runs; local memory starts as the device's fill byte).  Run-time
errors come back as TIK's: an access out of its buffer raises TikAccessViolationError ("Memory out of range ...
AccessViolation: ..."), a Scalar read before any write TikUninitializedScalarError ("found uninitialized Scalar").

``interactive=True`` offers a small prompt before and after the run when stdin is a terminal (``c`` run /
continue, ``p NAME`` print an input or output, ``q`` quit); otherwise it says so and runs through, so it never
hangs a non-interactive run.  Breakpoints and single-stepping are not modelled.
"""
from __future__ import annotations

import sys

import numpy as np

from npusim.errors import InvalidOperandError, OutOfBoundsError
from npusim.errors.tik import TikAccessViolationError, TikDebugError, TikUninitializedScalarError

SEED = 20190701  # the fixed seed of the random bytes unfed buffers start with (repeatable debug runs)


class Tikdb:
    """``tik_instance.tikdb`` of one :class:`~te_compat.tik.Tik`."""

    def __init__(self, tik):
        self._tik = tik

    def start_debug(self, feed_dict, interactive=True):
        """Run the kernel BuildCCE built with ``feed_dict`` (input name -> array or number); returns the outputs
        as numpy arrays, in BuildCCE's ``outputs`` order."""
        built = self._tik.built
        if built is None:
            raise TikDebugError("start_debug should be called after BuildCCE")
        values = check_feed(built.args, feed_dict)
        state = {"outputs": None, "feed": dict(feed_dict)}
        if interactive and not _prompt(self._tik, built, state, before=True):
            return []
        state["outputs"], hidden = run_kernel(self._tik.runtime, built.kernel, built.args, values)
        self._tik.prints.report(hidden, built.kernel.block_dim, sys.stdout)
        if interactive:
            _prompt(self._tik, built, state, before=False)
        return state["outputs"]

    def debug_print(self, expr):
        """TIK ``tikdb.debug_print(expr)``: print the value of a Scalar / Expr (or a text) each time the kernel
        passes here, in a tikdb run (see :mod:`te_compat.tik.debug_print`)."""
        self._tik.prints.add(expr)


def check_feed(args, feed_dict) -> dict:
    """The feed values by argument name, checked as TIK checks them."""
    inputs = [a for a in args if not a.output]
    expected = [a.name for a in inputs]
    if not isinstance(feed_dict, dict) or sorted(feed_dict) != sorted(expected):
        given = sorted(feed_dict) if isinstance(feed_dict, dict) else feed_dict
        raise TikDebugError(f"BuildCCE input list is {sorted(expected)}, but feed_dict list is {given}")
    values = {}
    for arg in inputs:
        value = feed_dict[arg.name]
        values[arg.name] = _scalar(arg, value) if arg.kind == "scalar" else _array(arg, value)
    return values


def _array(arg, value) -> np.ndarray:
    if not isinstance(value, np.ndarray):
        raise TikDebugError(f"{arg.name} input should be a numpy.ndarray, input type: {type(value).__name__}")
    if tuple(value.shape) != tuple(arg.shape):
        raise TikDebugError(f"{arg.name} input shape mismatch: the tensor is {list(arg.shape)}, the array "
                            f"{list(value.shape)}")
    if value.dtype.name != arg.dtype:
        raise TikDebugError(f"{arg.name} input dtype mismatch: the tensor is {arg.dtype}, the array "
                            f"{value.dtype.name}")
    return np.ascontiguousarray(value)


def _scalar(arg, value):
    is_int = np.dtype(arg.dtype).kind in "iu"
    if is_int:
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            raise TikDebugError(f"InputScalar {arg.name} is {arg.dtype}: feed a Python int, input: {value!r}")
        info = np.iinfo(arg.dtype)
        if not info.min <= int(value) <= info.max:
            raise TikDebugError(f"InputScalar {arg.name} value {value} is out of the range of {arg.dtype} "
                                f"[{info.min}, {info.max}]")
        return int(value)
    if isinstance(value, bool) or not isinstance(value, (int, float, np.floating, np.integer)):
        raise TikDebugError(f"InputScalar {arg.name} is {arg.dtype}: feed a Python float, input: {value!r}")
    return float(value)


def run_kernel(runtime, kernel, args, values: dict) -> list:
    """Launch ``kernel`` on ``runtime``'s device with the fed inputs; outputs and workspaces start as seeded
    random bytes.  Returns the outputs and the debugger's hidden workspaces by name (TIK's run-time errors
    translated)."""
    from te_compat.tik.debug_print import HIDDEN
    device = runtime.device
    rng = np.random.default_rng(SEED)
    by_name = {a.name: a for a in args}
    launch_args, allocated, outputs, hidden = [], [], [], []
    try:
        for param in kernel.params:
            spec = by_name.get(param.name)
            if param.kind == "scalar":
                launch_args.append(values[param.name])
                continue
            if spec is not None and not spec.output:
                ptr = device.to_device(values[param.name])
            else:
                nbytes = max(param.size_elems * np.dtype(param.dtype).itemsize, 1)
                ptr = device.to_device(np.frombuffer(rng.bytes(nbytes), dtype=np.uint8).copy())
                if spec is not None:
                    outputs.append((ptr, spec))
                elif param.name in HIDDEN:
                    hidden.append((ptr, param))
            allocated.append(ptr)
            launch_args.append(ptr)
        try:
            device.launch(kernel, launch_args)
            device.synchronize()
        except OutOfBoundsError as exc:
            raise TikAccessViolationError(f"Memory out of range: {exc}\nAccessViolation: {exc}") from exc
        except InvalidOperandError as exc:
            if "uninitialized Scalar" in str(exc):
                raise TikUninitializedScalarError(str(exc)) from exc
            raise
        return ([device.from_device(ptr, spec.shape, spec.dtype) for ptr, spec in outputs],
                {p.name: device.from_device(ptr, p.shape, p.dtype) for ptr, p in hidden})
    finally:
        for ptr in allocated:
            device.free(ptr)


def _prompt(tik, built, state, before: bool) -> bool:
    """The interactive prompt; False when the user quits.  Without a terminal: a note, then run through."""
    if not sys.stdin.isatty():
        if before:
            print("tikdb: stdin is not a terminal, running without the interactive prompt", file=sys.stderr)
        return True
    names = [a.name for a in built.args]
    while True:
        try:
            line = input("(tikdb) ").strip()
        except EOFError:
            return True
        if line in ("c", "continue", ""):
            return True
        if line in ("q", "quit"):
            return False
        if line.startswith("p "):
            print(_lookup(built, state, line[2:].strip(), names))
            continue
        print("commands: c (run / continue), p NAME (print an input, or an output after the run), q (quit)")


def _lookup(built, state, name: str, names: list):
    if name in state["feed"]:
        return state["feed"][name]
    outs = [a.name for a in built.args if a.output]
    if name in outs and state["outputs"] is not None:
        return state["outputs"][outs.index(name)]
    return f"no value for {name!r} here (known: {', '.join(names)})"


__all__ = ["Tikdb", "check_feed", "run_kernel"]
