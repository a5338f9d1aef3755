"""tikdb's interactive debugger (start_debug(..., interactive=True) on a terminal): breakpoints at lines of the
kernel's source, single steps, printing tensors / Scalars of the running block, quitting; the prompt is fed by a
scripted reader standing in for the terminal."""
from __future__ import annotations

import inspect

import numpy as np
import pytest
from tbe import tik

from te_compat.tik import stepping


def _scale_kernel():
    """Two blocks: each loads its 128 halves, reads element 3 into a Scalar, multiplies the tile by 2 and adds the
    Scalar, and stores the tile."""
    ti = tik.Tik()
    x = ti.Tensor("float16", (256,), name="x", scope=tik.scope_gm)
    y = ti.Tensor("float16", (256,), name="y", scope=tik.scope_gm)
    with ti.for_range(0, 2, block_num=2) as core:
        xu = ti.Tensor("float16", (128,), name="xu", scope=tik.scope_ubuf)
        ti.data_move(xu, x[core * 128], 0, 1, 8, 0, 0)                   # LINE_MOVE
        s = ti.Scalar("float16", name="s")
        s.set_as(xu[3])                                                  # LINE_SCALAR
        ti.vec_muls(128, xu, xu, 2.0, 1, 8, 8)                           # LINE_MULS
        ti.vec_adds(128, xu, xu, s, 1, 8, 8)                             # LINE_ADDS
        ti.data_move(y[core * 128], xu, 0, 1, 8, 0, 0)                   # LINE_STORE
    ti.BuildCCE(kernel_name="tikdb_scale", inputs=[x], outputs=[y])
    return ti


def _line(tag: str) -> int:
    source, first = inspect.getsourcelines(_scale_kernel)
    return first + next(i for i, text in enumerate(source) if tag in text)


class Script:
    """A terminal that answers the prompt with ``commands`` (then end of input) and records what is written."""

    def __init__(self, monkeypatch, commands):
        self.commands, self.out = list(commands), []
        monkeypatch.setattr(stepping, "terminal_reader", lambda: self.read)
        monkeypatch.setattr(stepping.Debugger, "__init__", self._init(stepping.Debugger.__init__))

    def _init(self, original):
        script = self

        def init(debugger, *args, **kwargs):
            original(debugger, *args, **kwargs)
            debugger.write = script.out.append
        return init

    def read(self):
        return self.commands.pop(0) if self.commands else None

    def text(self) -> str:
        return "\n".join(str(o) for o in self.out)


def _data():
    return (np.arange(256) % 17).astype(np.float16)


def test_breakpoint_prints_the_running_blocks_tensor_and_scalar(monkeypatch):
    x = _data()
    script = Script(monkeypatch, [f"b {_line('LINE_MULS')}", "c", "p xu", "p s", "c", "p xu", "c", "p y", "c"])
    y, = _scale_kernel().tikdb.start_debug({"x": x}, interactive=True)
    np.testing.assert_array_equal(y, x * 2 + np.repeat(x[[3, 131]], 128))
    out = script.out
    stops = [o for o in out if isinstance(o, str) and o.startswith("> block")]
    assert len(stops) == 3      # before the first instruction, then the breakpoint in block 0 and in block 1
    assert stops[1].startswith("> block 0") and f":{_line('LINE_MULS')})" in stops[1] and "vmuls" in stops[1]
    assert stops[2].startswith("> block 1")
    arrays = [o for o in out if isinstance(o, np.ndarray)]
    np.testing.assert_array_equal(arrays[0], x[:128])         # block 0's tile before the multiply
    np.testing.assert_array_equal(arrays[1], x[128:])         # block 1's
    np.testing.assert_array_equal(arrays[2], y)               # the output after the run
    assert float(x[3]) in [o for o in out if isinstance(o, float)]     # the Scalar of block 0


def test_step_walks_instruction_by_instruction(monkeypatch):
    script = Script(monkeypatch, ["s", "s", "l", "p s", "q"])
    assert _scale_kernel().tikdb.start_debug({"x": _data()}, interactive=True) == []
    stops = [o for o in script.out if isinstance(o, str) and o.startswith("> block")]
    lines = [int(s.rsplit(":", 1)[1].rstrip(")")) for s in stops]
    assert lines[:3] == [_line("LINE_MOVE"), _line("LINE_SCALAR"), _line("LINE_MULS")]
    assert stops[3] == stops[2]                               # "l" repeats where the run stands
    assert float(_data()[3]) in [o for o in script.out if isinstance(o, float)]   # the sload has run


def test_uninitialised_scalar_and_unknown_names(monkeypatch):
    script = Script(monkeypatch, ["p s", "p nothing", "b 1", "b x.py:abc", "help", "q"])
    _scale_kernel().tikdb.start_debug({"x": _data()}, interactive=True)
    text = script.text()
    assert "uninitialised (no write yet)" in text
    assert "no tensor, Scalar or input named 'nothing'" in text
    assert "no instruction of this kernel was written at 1" in text
    assert "not a line number: 'x.py:abc'" in text
    assert stepping.HELP in text


def test_clear_breakpoint_runs_to_the_end(monkeypatch):
    line = _line("LINE_ADDS")
    script = Script(monkeypatch, [f"b {__file__}:{line}", "b", f"cl {line}", f"cl {__file__}:{line}", "c"])
    y, = _scale_kernel().tikdb.start_debug({"x": _data()}, interactive=True)
    assert y.shape == (256,)
    text = script.text()
    assert f"breakpoints: {__file__}:{line}" in text and f"no breakpoint at {line}" in text
    assert f"cleared {__file__}:{line}" in text
    assert len([o for o in script.out if isinstance(o, str) and o.startswith("> block")]) == 1


def test_non_interactive_run_never_reads(monkeypatch):
    monkeypatch.setattr(stepping, "terminal_reader", lambda: pytest.fail("read from the terminal"))
    y, = _scale_kernel().tikdb.start_debug({"x": _data()}, interactive=False)
    assert y.shape == (256,)
