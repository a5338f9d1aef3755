"""``tik_instance.tikdb``: run a built TIK kernel on the simulator with numpy inputs (``start_debug``).

Feed checks are TIK's: the feed_dict keys must be the BuildCCE input tensors' and InputScalars' names ("BuildCCE
input list is [...], but feed_dict list is [...]"), each array must have the tensor's shape and dtype exactly ("x
input shape mismatch"), an InputScalar takes a Python int (int dtypes, in range) or float.  Outputs and workspaces
start as random bytes from a fixed seed (repeatable runs; local memory starts as the device's fill byte).  Run-time
errors come back as TIK's: an access out of its buffer raises TikAccessViolationError ("Memory out of range ...
AccessViolation: ..."), a Scalar read before any write TikUninitializedScalarError ("found uninitialized Scalar").

``interactive=True`` on a terminal runs the kernel under the debugger of :mod:`te_compat.tik.stepping`
(breakpoints at source lines, single steps, printing tensors and Scalars of the running block, quit), then offers
the prompt once more with the outputs; without a terminal it says so and runs through, so it never hangs a
non-interactive run.
"""
from __future__ import annotations

import contextlib
import sys

import numpy as np

from npusim.errors import InvalidOperandError, OutOfBoundsError
from npusim.errors.tik import TikAccessViolationError, TikDebugError, TikUninitializedScalarError
from te_compat.tik import stepping

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
        read = stepping.terminal_reader() if interactive else None
        if interactive and read is None:
            print("tikdb: stdin is not a terminal, running without the interactive prompt", file=sys.stderr)
        debugger = None
        if read is not None:
            debugger = stepping.Debugger(built.kernel, self._tik.sources.by_index(built.kernel), dict(feed_dict),
                                         read)
            debugger.write(f"tikdb: {built.kernel.name}, {built.kernel.block_dim} block(s); {stepping.HELP}")
        try:
            outputs, hidden = run_kernel(self._tik.runtime, built.kernel, built.args, values, debugger)
        except stepping.QuitDebugging:
            return []
        self._tik.prints.report(hidden, built.kernel.block_dim, sys.stdout)
        if debugger is not None:
            debugger.feed.update({a.name: out for a, out in zip([a for a in built.args if a.output], outputs)})
            debugger.write("tikdb: the run has finished (p NAME prints an output)")
            with contextlib.suppress(stepping.QuitDebugging):
                debugger.prompt(None, None)
        return outputs

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


def run_kernel(runtime, kernel, args, values: dict, debugger=None) -> list:
    """Launch ``kernel`` on ``runtime``'s device with the fed inputs (under ``debugger``, a
    :class:`~te_compat.tik.stepping.Debugger`, when given); outputs and workspaces start as seeded random bytes.
    Returns the outputs and the debugger's hidden workspaces by name (TIK's run-time errors translated)."""
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
            if debugger is None:
                device.launch(kernel, launch_args)
                device.synchronize()
            else:
                device.debug_run(kernel, launch_args, debugger.attach)
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


__all__ = ["Tikdb", "check_feed", "run_kernel"]
