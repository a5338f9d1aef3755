"""A happens-before check of a built cube kernel's on-chip buffers (L1, L0A, L0B, L0C), for tests.

The functional simulator runs a kernel's instructions in program order, so a missing or misplaced set_flag /
wait_flag never shows in its results.  This walks one block's instructions as the chip runs them -- each pipe in
program order, the pipes concurrent, a wait_flag ordered after the oldest unmatched set_flag of the same
(src pipe, dst pipe, event) -- keeps a vector clock per pipe, and reports every pair of accesses to the same
32-byte block of a tracked buffer from two pipes (a write and a read, or two writes) that nothing orders.
Accesses: data_move (its bursts), mmad (its A, B and C fractals), load3d (its L0A fractals; the whole source
feature map from its start, conservatively), copy_matrix_cc_to_ubuf / copy_matrix_cc_to_gm (their L0C fractals).
Loops are unrolled.
"""
from __future__ import annotations

import math
from collections import defaultdict, deque

from npusim.sim.kernel import BufRef, If, Instr, Loop

TRACKED = ("L1", "L0A", "L0B", "L0C")
_ITEM = {"float16": 2, "float32": 4, "int32": 4, "int8": 1, "uint8": 1}
_BLOCK = 32
_OPS = {"add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
        "floordiv": lambda a, b: a // b, "mod": lambda a, b: a % b, "min": min, "max": max}


def _value(x, env):
    if isinstance(x, (bool, int)):
        return int(x)
    kind = type(x).__name__
    if kind == "Var":
        return env[x.name]
    if kind == "BinOp":
        return _OPS[x.op](_value(x.lhs, env), _value(x.rhs, env))
    raise TypeError(f"pipe_order: cannot evaluate {x!r}")


class _Walk:
    def __init__(self, kernel, statics):
        self.statics = statics
        self.buffers = {b.name: b for b in kernel.buffers}
        self.tracked = {name for name, b in self.buffers.items() if b.scope in TRACKED}
        self.clock = defaultdict(dict)          # pipe -> its vector clock
        self.count = defaultdict(int)           # pipe -> instructions it ran
        self.flags = defaultdict(deque)         # (src, dst, event) -> clocks of unmatched set_flags
        self.state = {}                         # (buffer, block) -> [last write, reads since]
        self.races = []

    def _elems(self, name: str) -> int:
        return math.prod(self.buffers[name].shape)

    def _ordered(self, event, clock) -> bool:
        pipe, number = event
        return clock.get(pipe, 0) > number

    def _touch(self, write: bool, ref: BufRef, start: int, count: int, me, clock, index: int) -> None:
        if ref.buffer not in self.tracked or count <= 0:
            return
        isz = _ITEM[self.buffers[ref.buffer].dtype]
        first, last = start * isz // _BLOCK, ((start + count) * isz - 1) // _BLOCK
        for block in range(first, last + 1):
            entry = self.state.setdefault((ref.buffer, block), [None, []])
            writer, readers = entry
            if writer is not None and writer[0] != me[0] and not self._ordered(writer, clock):
                self.races.append(("write-read" if not write else "write-write", ref.buffer, block, index))
            if write:
                for reader in readers:
                    if reader[0] != me[0] and not self._ordered(reader, clock):
                        self.races.append(("read-write", ref.buffer, block, index))
                entry[0], entry[1] = me, []
            else:
                readers.append(me)

    def _accesses(self, instr: Instr, env, me, clock, index: int) -> None:
        a = instr.arg_dict()
        v = lambda x: _value(x, env)  # noqa: E731
        if instr.opcode == "data_move":
            for ref, write, gap in ((a["src"], False, a.get("src_stride", 0)),
                                    (a["dst"], True, a.get("dst_stride", 0))):
                if ref.buffer in self.tracked:
                    unit = _BLOCK // _ITEM[self.buffers[ref.buffer].dtype]
                    burst, step = v(a["burst"]) * unit, (v(a["burst"]) + v(gap)) * unit
                    nburst = v(a["nburst"])
                    for i in range(nburst if nburst > 1 else 1):
                        self._touch(write, ref, v(ref.offset) + i * step, burst, me, clock, index)
        elif instr.opcode == "mmad":
            m, k, n = (v(a[x]) for x in ("matrix_m", "matrix_k", "matrix_n"))
            m16, n16 = -(-m // 16) * 16, -(-n // 16) * 16
            self._touch(False, a["src_fm"], v(a["src_fm"].offset), m16 * k, me, clock, index)
            self._touch(False, a["src_filter"], v(a["src_filter"].offset), k * n16, me, clock, index)
            self._touch(True, a["dst_fm"], v(a["dst_fm"].offset), m16 * n16, me, clock, index)
        elif instr.opcode == "load3d":
            src, dst = a["src"], a["dst"]
            rest = self._elems(src.buffer) - v(src.offset)
            self._touch(False, src, v(src.offset), rest, me, clock, index)
            self._touch(True, dst, v(dst.offset), v(a["repeat_time"]) * 256, me, clock, index)
        elif instr.opcode == "copy_matrix_cc_to_ubuf":     # bursts of whole 16 x 16 fractals
            src, frac = a["src"], 256
            burst, step = v(a["burst"]) * frac, (v(a["burst"]) + v(a.get("src_stride", 0))) * frac
            for i in range(max(v(a["nburst"]), 1)):
                self._touch(False, src, v(src.offset) + i * step, burst, me, clock, index)
        elif instr.opcode == "copy_matrix_cc_to_gm":       # fractal columns of m_size rows, src_stride rows apart
            src = a["src"]
            for column in range(-(-v(a["n_size"]) // 16)):
                self._touch(False, src, v(src.offset) + column * v(a["src_stride"]) * 16, v(a["m_size"]) * 16, me,
                            clock, index)
        elif any(isinstance(x, BufRef) and x.buffer in self.tracked for _, x in instr.args):
            raise NotImplementedError(f"pipe_order: {instr.opcode} on a tracked buffer is not modelled")

    def run(self, body, env, counter) -> None:
        for stmt in body:
            if isinstance(stmt, Loop):
                start = counter[0]
                for value in range(_value(stmt.begin, env), _value(stmt.end, env)):
                    counter[0] = start
                    self.run(stmt.body, {**env, stmt.var: value}, counter)
                continue
            if isinstance(stmt, If):
                raise NotImplementedError("pipe_order: kernels with if scopes are not walked")
            index = counter[0]
            counter[0] += 1
            pipe = self.statics[index].pipe
            me = (pipe, self.count[pipe])
            clock = dict(self.clock[pipe])
            if stmt.opcode in ("set_flag", "wait_flag"):
                key = (stmt.arg("src_pipe"), stmt.arg("dst_pipe"), _value(stmt.arg("event_id", 0), env))
                if stmt.opcode == "wait_flag":
                    if not self.flags[key]:
                        self.races.append(("wait without a set", key, None, index))
                    else:
                        for p, n in self.flags[key].popleft().items():
                            clock[p] = max(clock.get(p, 0), n)
            self._accesses(stmt, env, me, clock, index)
            self.count[pipe] += 1
            clock[pipe] = self.count[pipe]
            if stmt.opcode == "set_flag":
                self.flags[key].append(dict(clock))
            self.clock[pipe] = clock


def races(kernel, compiled_statics, block: int) -> list:
    """The unordered access pairs of block ``block`` of ``kernel`` (``compiled_statics``: its compiled
    instructions' statics, for each one's pipe): (kind, buffer, 32-byte block, instruction index) each."""
    walk = _Walk(kernel, compiled_statics)
    walk.run(kernel.body, {"block_idx": block}, [0])
    return walk.races
