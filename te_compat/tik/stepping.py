"""tikdb's interactive debugger: breakpoints at source lines of the kernel's Python file, single steps, printing
tensors and Scalars of the block being run.

Every instruction a TIK call emits remembers the line of the user's code that made it (:class:`SourceLines`:
the first frame outside npusim and te_compat).  ``start_debug(feed, interactive=True)`` on a terminal then runs
the kernel block after block, stopping before instructions (:class:`Debugger`, the simulator's step hook):

    b LINE | b FILE:LINE   break before every instruction made at that line (any block); ``b`` lists breakpoints
    cl [LINE]              clear one breakpoint (or all)
    s                      step: run to the next instruction the kernel's code made (BuildCCE's inserted pipe
                           synchronisation runs without stopping)
    c                      continue to the next breakpoint (or the end of the run)
    p NAME                 print a tensor (GM or local, by its name in the kernel), a Scalar, or a fed input
    l                      where: block, instruction, source line
    q                      quit: stop the run (start_debug returns [])

Nothing is read when stdin is not a terminal (the caller runs through instead), so a non-interactive run never
waits for input.
"""
from __future__ import annotations

import os
import sys
from typing import Callable, Optional

import numpy as np

from npusim.sim.expr import UNSET
from npusim.sim.kernel import BLOCK_IDX

_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_PACKAGE_DIRS = tuple(os.path.join(_ROOT, name) + os.sep for name in ("te_compat", "npusim"))
HELP = ("commands: b LINE | b FILE:LINE (break), b (list), cl [LINE] (clear), s (step), c (continue), "
        "p NAME (print a tensor, Scalar or input), l (where), q (quit)")


class QuitDebugging(Exception):
    """Raised through the run when the user quits at the prompt."""


class SourceLines:
    """The user's source line of every instruction a TIK kernel emitted (by the Instr object's identity)."""

    def __init__(self):
        self._lines: dict = {}
        self._keep: list = []      # the Instr objects, alive as long as their ids are keys

    def note(self, instr) -> None:
        """KernelBuilder.on_emit: remember where ``instr`` was written."""
        frame = sys._getframe(1)
        while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE_DIRS):
            frame = frame.f_back
        if frame is not None:
            self._lines[id(instr)] = (frame.f_code.co_filename, frame.f_lineno)
            self._keep.append(instr)

    def by_index(self, kernel) -> dict:
        """Instruction pre-order index -> (file, line) for the instructions of ``kernel`` this map knows."""
        return {index: self._lines[id(instr)] for index, instr in kernel.instructions() if id(instr) in self._lines}


class Debugger:
    """The step hook of a tikdb run: decides where to stop and runs the prompt there."""

    def __init__(self, kernel, lines: dict, feed: dict, read_line: Callable, write: Callable = print):
        self.kernel, self.lines, self.feed = kernel, lines, feed
        self.slots = None                   # the SlotMap of the run's compiled kernel (attach)
        self.read_line, self.write = read_line, write
        self.breakpoints: set = set()       # (file or None, line)
        self.stepping = True                # stop before the first instruction
        self.texts = {index: _instr_text(instr) for index, instr in kernel.instructions()}

    def attach(self, compiled) -> "Debugger":
        """Device.debug_run's hook factory: this debugger, knowing the compiled kernel's variable slots."""
        self.slots = compiled.slots
        return self

    # -- the hook ------------------------------------------------------------------------------------------------
    def __call__(self, ctx, index: int) -> None:
        where = self.lines.get(index)
        if where is None:       # inserted by BuildCCE (pipe synchronisation): not a line of the user's kernel
            return
        if not self.stepping and not self._breaks_at(where):
            return
        self.stepping = False
        self.write(self._where(ctx, index))
        self.prompt(ctx, index)

    def prompt(self, ctx, index: Optional[int]) -> None:
        """Read commands until one resumes the run (``s`` / ``c``); ``q`` raises QuitDebugging."""
        while True:
            line = self.read_line()
            if line is None or line in ("c", "continue"):
                return
            if line in ("s", "step", "n", "next"):
                self.stepping = True
                return
            if line in ("q", "quit", "exit"):
                raise QuitDebugging()
            self.command(ctx, index, line)

    def command(self, ctx, index: Optional[int], line: str) -> None:
        """A command that does not resume the run."""
        word, _, rest = line.partition(" ")
        rest = rest.strip()
        if word in ("b", "break"):
            self.write(self._break(rest) if rest else self._list())
        elif word in ("cl", "clear"):
            self.write(self._clear(rest))
        elif word in ("p", "print") and rest:
            self.write(self.value(ctx, rest))
        elif word in ("l", "where", "w") and index is not None:
            self.write(self._where(ctx, index))
        else:
            self.write(HELP)

    # -- breakpoints ---------------------------------------------------------------------------------------------
    def _break(self, spec: str) -> str:
        file, _, number = spec.rpartition(":")
        if not number.isdigit():
            return f"not a line number: {spec!r} (b LINE or b FILE:LINE)"
        point = (file or None, int(number))
        known = [w for w in set(self.lines.values()) if _matches(point, w)]
        if not known:
            return f"no instruction of this kernel was written at {spec} (lines: {self._line_list()})"
        self.breakpoints.add(point)
        return f"breakpoint at {spec} ({len([1 for w in self.lines.values() if _matches(point, w)])} instructions)"

    def _clear(self, spec: str) -> str:
        if not spec:
            self.breakpoints.clear()
            return "all breakpoints cleared"
        file, _, number = spec.rpartition(":")
        point = (file or None, int(number)) if number.isdigit() else None
        if point not in self.breakpoints:
            return f"no breakpoint at {spec}"
        self.breakpoints.discard(point)
        return f"cleared {spec}"

    def _list(self) -> str:
        if not self.breakpoints:
            return "no breakpoints"
        return "breakpoints: " + ", ".join(f"{f + ':' if f else ''}{n}" for f, n in sorted(self.breakpoints,
                                                                                           key=lambda p: p[1]))

    def _line_list(self) -> str:
        return ", ".join(str(n) for n in sorted({line for _, line in self.lines.values()}))

    def _breaks_at(self, where: tuple) -> bool:
        return any(_matches(point, where) for point in self.breakpoints)

    # -- values --------------------------------------------------------------------------------------------------
    def value(self, ctx, name: str):
        """A tensor's contents in the running block's memory, a Scalar's value, or a fed input."""
        if ctx is not None:
            found = self._tensor(ctx, name)
            if found is not None:
                return found
            slots = self.slots
            if slots is not None and name in slots.registers:
                held = ctx.env[slots.slot(name)]
                return "uninitialised (no write yet)" if held is UNSET else held
        if name in self.feed:
            return self.feed[name]
        return f"no tensor, Scalar or input named {name!r} here"

    def _tensor(self, ctx, name: str):
        buffer = next((b for b in self.kernel.buffers if b.name == name), None)
        if buffer is not None:
            isz = np.dtype(buffer.dtype).itemsize
            view = ctx.core_memory.view(buffer.scope, buffer.dtype)
            start = buffer.addr_bytes // isz
            return view[start:start + buffer.size_elems].reshape(_shape(buffer)).copy()
        for index, param in enumerate(self.kernel.params):
            if param.name == name and param.kind != "scalar":
                key = ("GM", index, param.dtype)
                view = ctx.views.get(key)
                if view is None:
                    return f"{name}: GM tensor not read or written as {param.dtype} by this kernel"
                return view[:param.size_elems].reshape(_shape(param)).copy()
        return None

    def _where(self, ctx, index: int) -> str:
        block = ctx.env[self.slots.slot(BLOCK_IDX)] if ctx is not None and self.slots is not None else "-"
        file, line = self.lines.get(index, ("?", "?"))
        return f"> block {block}, instruction #{index} {self.texts.get(index, '')}  ({os.path.basename(file)}:{line})"


def _matches(point: tuple, where: tuple) -> bool:
    file, line = point
    return where[1] == line and (file is None or os.path.abspath(file) == os.path.abspath(where[0])
                                 or os.path.basename(file) == os.path.basename(where[0]))


def _shape(decl) -> tuple:
    shape = getattr(decl, "shape", None)
    return tuple(shape) if shape else (decl.size_elems,)


def _instr_text(instr) -> str:
    from npusim.sim.kernel import instr_str
    text = instr_str(instr)
    return text if len(text) <= 120 else text[:117] + "..."


def terminal_reader() -> Optional[Callable]:
    """A line reader on the terminal (``(tikdb)`` prompt; None at end of input), or None when stdin is not one."""
    if not sys.stdin.isatty():
        return None

    def read():
        try:
            return input("(tikdb) ").strip()
        except EOFError:
            return None
    return read


__all__ = ["Debugger", "HELP", "QuitDebugging", "SourceLines", "terminal_reader"]
