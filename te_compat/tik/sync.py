"""Pipe synchronisation for TIK kernels, inserted the way TIK does it: a kernel never writes flags itself.

Within straight-line code, an instruction on pipe P that touches a buffer an earlier instruction of another pipe Q
wrote (or, for a write, read) gets ``set_flag(Q, P, 0)`` + ``wait_flag(Q, P, 0)`` just before it; after that
everything Q did before counts as ordered before P.  Same-pipe instructions run in order (the cost model adds the
pipe's own dependence latency).  A loop or if whose body runs on one pipe is synchronised as one access; one whose
body spans several pipes gets ``pipe_barrier(ALL)`` before it, at the top of every iteration / branch, and after
it, so its iterations do not overlap.  A ``thread_num`` >= 2 loop whose cross-pipe hazards are all on the tensors
declared in its body (TIK gives those one copy per thread) is pipelined instead, as TIK's double buffering is:
the first pipe touching those tensors in an iteration waits for the other pipes to finish iteration N-2 (a
ping-pong of events 1 and 2 per pipe pair), so loads of the next tile overlap work on this one.  The simulator
runs the iterations in order on one copy, which gives the same values.  Buffers are tracked whole (by name),
CMPMASK as one more buffer.
"""
from __future__ import annotations

from npusim.sim.isa import ISA
from npusim.sim.kernel import BufRef, If, Instr, Loop

_EVENT = 0
_PING_PONG = (1, 2)   # the event ids of the two buffer copies of a thread_num=2 loop (0: straight-line syncs)
_BARRIER = Instr("pipe_barrier", (("pipe", "ALL"),))
_SCALAR_FAMILIES = ("scalar", "atomic", "tvm_call")
_DST_NAMES = ("dst", "dst_fm")


class _State:
    """Which pipes wrote / read each buffer since it was last synchronised."""

    def __init__(self):
        self.writers: dict = {}
        self.readers: dict = {}

    def sources(self, pipe: str, reads, writes) -> set:
        found = set()
        for buf in reads:
            found |= self.writers.get(buf, set())
        for buf in writes:
            found |= self.writers.get(buf, set()) | self.readers.get(buf, set())
        found.discard(pipe)
        return found

    def synced(self, src: str, pipe: str) -> None:
        for table in (self.writers, self.readers):
            for pipes in table.values():
                if src in pipes:
                    pipes.discard(src)
                    pipes.add(pipe)

    def record(self, pipe: str, reads, writes) -> None:
        for buf in reads:
            self.readers.setdefault(buf, set()).add(pipe)
        for buf in writes:
            self.writers.setdefault(buf, set()).add(pipe)


def insert_sync(kernel, chip, buffered=None):
    """``kernel`` with set_flag / wait_flag / pipe_barrier inserted (a new Kernel).  ``buffered``: loop variable
    of a thread_num >= 2 loop -> the local buffers declared in its body."""
    from dataclasses import replace
    scopes = {p.name: "GM" for p in kernel.params}
    scopes.update({b.name: b.scope for b in kernel.buffers})
    inserter = _Inserter(chip, scopes, buffered or {})
    return replace(kernel, body=inserter.body(kernel.body, _State()))


class _Inserter:
    def __init__(self, chip, scopes: dict, buffered: dict):
        self.chip, self.scopes, self.buffered = chip, scopes, buffered

    def access(self, instr: Instr):
        """(pipe, buffers read, buffers written) of one instruction; pipe None for sync instructions."""
        spec = ISA[instr.opcode]
        if spec.family == "sync":
            return None, (), ()
        reads, writes = set(), set()
        for name, value in instr.args:
            if name in ("dst_list", "src_list"):   # vnchwconv's address lists: 16 tensor operands each
                refs = {ref.buffer for ref in value if isinstance(ref, BufRef)}
                (writes if name == "dst_list" else reads).update(refs)
                if name == "dst_list":
                    reads.update(refs)     # 8-bit: the other half of each destination block is kept
            elif isinstance(value, BufRef):
                (writes if name in _DST_NAMES else reads).add(value.buffer)
                if name in _DST_NAMES:
                    reads.add(value.buffer)  # vmla / vaxpy / masked lanes keep dst: a read as well
            elif value == "CMPMASK":
                reads.add("CMPMASK")
        if instr.opcode == "vcmp":
            writes.add("CMPMASK")
        return self.pipe(instr, spec), reads, writes

    def pipe(self, instr: Instr, spec) -> str:
        if instr.opcode in ("data_move", "load2d", "load3d"):   # the path's pipe (MTE1 for L1 -> L0A/L0B ...)
            src, dst = instr.arg("src"), instr.arg("dst")
            path = self.chip.paths.get((self.scopes[src.buffer], self.scopes[dst.buffer]))
            return path.pipe if path is not None else "MTE2"
        if spec.family in _SCALAR_FAMILIES:
            return "S"
        if spec.family == "cube":
            return "M"
        return "V"

    def summary(self, stmts) -> tuple:
        pipes, reads, writes = set(), set(), set()
        for stmt in stmts:
            if isinstance(stmt, Instr):
                pipe, r, w = self.access(stmt)
                if pipe is not None:
                    pipes.add(pipe)
                    reads |= r
                    writes |= w
            else:
                for part in ((stmt.body,) if isinstance(stmt, Loop) else (stmt.then_body, stmt.else_body)):
                    p, r, w = self.summary(part)
                    pipes |= p
                    reads |= r
                    writes |= w
        return pipes, reads, writes

    def body(self, stmts, state: _State) -> tuple:
        out = []
        for stmt in stmts:
            if isinstance(stmt, Instr):
                pipe, reads, writes = self.access(stmt)
                if pipe is not None:
                    self.sync(out, state, pipe, reads, writes)
                out.append(stmt)
                continue
            pipes, reads, writes = self.summary((stmt,))
            if len(pipes) <= 1:  # one pipe: in order inside, synchronised as one access
                if pipes:
                    self.sync(out, state, next(iter(pipes)), reads, writes)
                out.append(stmt)
                continue
            if state.writers or state.readers:  # earlier work to wait for
                out.append(_BARRIER)
            pairs = self.ping_pong_pairs(stmt)
            if pairs:
                out.extend(_flag("set_flag", src, dst, event) for src, dst in pairs for event in _PING_PONG)
                out.append(self.pipelined(stmt, pairs))
                out.extend(_flag("wait_flag", src, dst, event) for src, dst in pairs for event in _PING_PONG)
            else:
                out.append(self.nested(stmt))
            out.append(_BARRIER)
            state.writers.clear()
            state.readers.clear()
        return tuple(out)

    def nested(self, stmt):
        if isinstance(stmt, Loop):
            return Loop(stmt.var, stmt.begin, stmt.end, (_BARRIER,) + self.body(stmt.body, _State()))
        return If(stmt.cond, self.body(stmt.then_body, _State()),
                  self.body(stmt.else_body, _State()) if stmt.else_body else ())

    def ping_pong_pairs(self, stmt) -> tuple:
        """(other pipe, first pipe) pairs to pipeline a thread_num >= 2 loop with; () when it cannot be (not such
        a loop, a cross-pipe hazard on a tensor declared outside it, too few event ids)."""
        local = self.buffered.get(stmt.var) if isinstance(stmt, Loop) else None
        if not local or self.chip.event_ids <= max(_PING_PONG):
            return ()
        order, outer = [], {}
        for instr in _instrs(stmt.body):
            pipe, reads, writes = self.access(instr)
            if pipe is None:
                continue
            if (reads | writes) & local and pipe not in order:
                order.append(pipe)
            for buf in (reads | writes) - local:
                pipes, written = outer.get(buf, (set(), False))
                outer[buf] = (pipes | {pipe}, written or buf in writes)
        if not order or any(len(pipes) > 1 and written for pipes, written in outer.values()):
            return ()
        return tuple((other, order[0]) for other in order[1:])

    def pipelined(self, loop: Loop, pairs: tuple) -> Loop:
        from npusim.sim.kernel import BinOp, Var
        event = BinOp("add", _PING_PONG[0], BinOp("mod", Var(loop.var), len(_PING_PONG)))
        head = tuple(_flag("wait_flag", src, dst, event) for src, dst in pairs)
        tail = tuple(_flag("set_flag", src, dst, event) for src, dst in pairs)
        return Loop(loop.var, loop.begin, loop.end, head + self.body(loop.body, _State()) + tail)

    @staticmethod
    def sync(out: list, state: _State, pipe: str, reads, writes) -> None:
        for src in sorted(state.sources(pipe, reads, writes)):
            out.append(Instr("set_flag", (("src_pipe", src), ("dst_pipe", pipe), ("event_id", _EVENT))))
            out.append(Instr("wait_flag", (("src_pipe", src), ("dst_pipe", pipe), ("event_id", _EVENT))))
            state.synced(src, pipe)
        state.record(pipe, reads, writes)


def _flag(opcode: str, src: str, dst: str, event) -> Instr:
    return Instr(opcode, (("src_pipe", src), ("dst_pipe", dst), ("event_id", event)))


def _instrs(stmts):
    for stmt in stmts:
        if isinstance(stmt, Instr):
            yield stmt
        elif isinstance(stmt, Loop):
            yield from _instrs(stmt.body)
        else:
            yield from _instrs(stmt.then_body)
            yield from _instrs(stmt.else_body)


__all__ = ["insert_sync"]
