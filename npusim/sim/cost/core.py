"""One core's pipes, replaying the records of the blocks it ran (the model is described in :mod:`npusim.sim.cost`).

Per pipe: ``free`` (when it may start its next instruction), ``done`` (when everything it started is complete:
completion is in order), a queue of instructions the scalar unit issued but the pipe cannot start yet (it waits for
a flag), and, on pipes that track dependences, the in-flight writers: (time their result is usable, instruction).
"""
from __future__ import annotations

import bisect
from collections import deque

from npusim.errors.sim import SimulatorError, SyncError
from npusim.sim.cost.l2 import block_queues
from npusim.sim.cost.ops import (BARRIER_ALL, CUBE, GM_READ, MOVE, NOP, PROGRAM, SCALAR, SET_FLAG, VECTOR,
                                 WAIT_FLAG, cube_tiles)


class PortCalendar:
    """Busy intervals of a core's share of HBM (sorted, disjoint).  A transfer books its port time from its start
    in whatever gaps are free (its bytes interleave with other transfers'), so the port is never idle while a
    transfer waits for it."""

    def __init__(self):
        self.starts: list = []
        self.ends: list = []

    def place(self, earliest: float, duration: float) -> float:
        """Book ``duration`` cycles from ``earliest`` on; returns when the last of them is through."""
        starts, ends = self.starts, self.ends
        count = len(ends)
        if not count or earliest > ends[-1]:
            starts.append(earliest)
            ends.append(earliest + duration)
            return earliest + duration
        i = bisect.bisect_right(starts, earliest) - 1         # the last interval starting at or before earliest
        if i >= 0 and ends[i] >= earliest:
            first, merged_start, t = i, starts[i], ends[i]
        else:
            first, merged_start, t = i + 1, earliest, earliest
        k, remaining = i + 1, duration
        while k < count and starts[k] - t < remaining:      # fill the gaps before interval k, then skip it
            remaining -= starts[k] - t
            t = ends[k]
            k += 1
        end = t + remaining
        last, merged_end = k - 1, end
        if k < count and starts[k] <= end:
            last, merged_end = k, ends[k]
        starts[first:last + 1] = [merged_start]
        ends[first:last + 1] = [merged_end]
        return end


class CoreSim:
    """Simulates one core's blocks in the order it ran them."""

    __slots__ = ("trace", "chip", "ops", "tables", "free", "done", "queues", "intervals", "inflight", "may_depend",
                 "pairs", "share", "port", "flags", "tiles", "block", "flag_cycles", "l2", "misses", "l2_port",
                 "l2_rate")

    def __init__(self, trace, chip, ops: list, tables, footprints, hbm_share: float, port: bool, l2=None):
        """``l2``: the launch's :func:`~npusim.sim.cost.l2.read_misses` (None: every GM read comes from HBM)."""
        self.trace, self.chip, self.ops, self.tables = trace, chip, ops, tables
        self.queues = [()] * tables.count            # () until a pipe must hold an instruction back (_enqueue)
        self.intervals = [[] for _ in tables.names]
        if footprints is None:
            self.may_depend = self.pairs = self.inflight = None
        else:       # in-flight writers are recorded only when dependences are tracked
            self.may_depend, self.pairs = footprints.may_depend, footprints.pairs
            self.inflight = [deque() for _ in tables.names]
        self.share = hbm_share
        self.port = PortCalendar() if port else None
        self.l2, self.misses = (l2 if port else None), None
        self.l2_port = PortCalendar() if self.l2 is not None else None     # the core's L2 read rate
        self.l2_rate = chip.l2_read_bytes_per_cycle
        self.tiles = None                            # (units, kstep) -> cube tiles, made by the first mmad
        self.flag_cycles = tables.flag_cycles

    def run(self, blocks) -> tuple:
        """Replay a core's ``blocks`` back to back from cycle 0: (end, [(start, end)] per block)."""
        clock, times = 0.0, []
        for block in blocks:
            end = self.run_block(block, clock)
            times.append((clock, end))
            clock = end
        return clock, times

    def timeline(self, names: tuple) -> tuple:
        """(busy cycles, intervals) per pipe name, for the pipes that held any instruction."""
        busy, intervals = {}, {}
        for name, spans in zip(names, self.intervals):
            if spans:
                busy[name] = sum([e - s for s, e, _ in spans])
                intervals[name] = tuple(spans)
        return busy, intervals

    def _enqueue(self, p: int, item: tuple) -> None:
        queue = self.queues[p]
        if not queue:
            queue = self.queues[p] = deque()
        queue.append(item)

    # ---- the scalar unit walks a block --------------------------------------------------------------------------
    def run_block(self, block, start: float) -> float:
        """Replay ``block`` from cycle ``start`` (every pipe idle); returns when its last instruction completes.

        This loop is the model's hot path: a vector instruction or a move its pipe can take now (nothing queued
        before it) runs inline, since a call per record would cost as much as the rest of its work; everything else
        goes through :meth:`_scalar_side`, :meth:`_sync` and :meth:`_run`."""
        self.block, self.flags = block.block, {}
        self.misses = None if self.l2 is None else block_queues(self.l2, block.block)
        tables = self.tables
        free = self.free = [start] * tables.count
        done = self.done = [start] * tables.count
        inflight = self.inflight
        tracking = inflight is not None
        if tracking:
            for waiting in inflight:
                waiting.clear()
        ops, queues, intervals, issue, dependence = self.ops, self.queues, self.intervals, tables.issue, \
            tables.dependence
        s = start
        for index, units in block.records:
            op = ops[index]
            kind = op[0]
            if kind <= MOVE:                # the hot path: a vector instruction or move its pipe can take now
                p = op[1]
                if p and not queues[p]:
                    s += issue
                    begin = free[p]
                    if begin < s:
                        begin = s
                    if tracking and op[-1] and inflight[p]:
                        begin = self._after_producers(p, index, begin)
                    if kind == VECTOR:
                        end = begin + op[3] * units
                        complete = end + op[2]
                    elif op[7] and self.port is not None:     # a GM move that shares HBM with other cores
                        end, complete = self._move(op, units, begin, index)
                    else:                                     # _move without the HBM calendar, inline
                        setup_end = op[2] + units / op[3]
                        data_end = units / op[4]
                        end = begin + (setup_end if setup_end > data_end else data_end)
                        complete = begin + op[5] + units / op[6]
                        if complete < end:
                            complete = end
                    if complete < done[p]:
                        complete = done[p]
                    free[p] = end
                    done[p] = complete
                    if tracking and op[-1]:
                        inflight[p].append((complete + dependence[p], index))
                    if end > begin:
                        intervals[p].append((begin, end, index))
                    continue
            elif kind == SCALAR:
                cycles = op[2]
                intervals[0].append((s, s + cycles, index))
                s += cycles
                continue
            p = op[1]
            if p == 0:
                s = self._scalar_side(op, (index, units), s)
                continue
            s += issue
            queue = queues[p]
            if queue:
                queue.append((s, (index, units)))
            elif kind > CUBE:            # set_flag / wait_flag / pipe_barrier on this pipe
                if not self._sync(op, (index, units), free[p] if free[p] > s else s):
                    self._enqueue(p, (s, (index, units)))
            elif not self._run(op, (index, units), s):
                self._enqueue(p, (s, (index, units)))
        if any(queues):
            raise self._hang(next(queue for queue in queues if queue)[0][1])
        return max(s, max(done), max(free))

    def _scalar_side(self, op, record, s: float) -> float:
        kind = op[0]
        if kind == PROGRAM:     # tvm_call: a whole loop nest on the scalar unit; units = (alu ops, accesses)
            alu_ops, accesses = record[1]
            cycles = alu_ops * self.chip.scalar_alu_cycles + accesses * self.chip.scalar_mem_cycles
            self.intervals[0].append((s, s + cycles, record[0]))
            return s + cycles
        if kind == NOP:
            return s
        if kind == BARRIER_ALL:
            for queue in self.queues:
                if queue:
                    raise self._hang(queue[0][1])
            return max(s, max(self.done), max(self.free))
        if kind == SET_FLAG:
            end = s + self.flag_cycles
            self._raise(op[2] + (record[1],) if op[3] else op[2], end, op[4])
            return end
        waiting = self.flags.get(op[2] + (record[1],) if op[3] else op[2])
        if not waiting:
            raise self._hang(record)
        begin = max(s, waiting.popleft())
        # S stalls until the flag arrives; only the wait instruction itself counts as S work
        self.intervals[0].append((begin, begin + self.flag_cycles, record[0]))
        return begin + self.flag_cycles

    # ---- the other pipes ----------------------------------------------------------------------------------------
    def _run(self, op, record, ready: float) -> bool:
        """Start ``record`` on its pipe no earlier than ``ready``; False when it must wait for a flag."""
        kind, p = op[0], op[1]
        free = self.free
        start = free[p] if free[p] > ready else ready
        if kind > CUBE:
            return self._sync(op, record, start)
        if op[-1] and self.may_depend is not None and self.inflight[p]:
            start = self._after_producers(p, record[0], start)
        units = record[1]
        if kind == MOVE:
            end, complete = self._move(op, units, start, record[0])
        elif kind == VECTOR:
            end = start + op[3] * units
            complete = end + op[2]
        else:
            end, complete = self._cube(op, units, start)
        done = self.done
        if complete < done[p]:
            complete = done[p]
        free[p], done[p] = end, complete
        if op[-1] and self.may_depend is not None:
            self.inflight[p].append((complete + self.tables.dependence[p], record[0]))
        if end > start:
            self.intervals[p].append((start, end, record[0]))
        return True

    def _move(self, op, nbytes: float, start: float, index: int) -> tuple:
        """(pipe free, complete) of instruction ``index``, a data_move of ``nbytes`` starting at ``start``; op =
        (MOVE, pipe, setup, setup_rate, rate, latency, latency_rate, gm, tracked)."""
        setup_end = op[2] + nbytes / op[3]
        data_end = nbytes / op[4]
        end = start + (setup_end if setup_end > data_end else data_end)
        if op[7] and self.port is not None:             # GM bytes also take the core's share of HBM
            from_hbm = nbytes
            if op[7] == GM_READ and self.misses is not None:    # the L2 serves what it holds
                from_hbm = self._l2_miss(op[1], index)
                if from_hbm < nbytes:
                    l2_end = self.l2_port.place(start, (nbytes - from_hbm) / self.l2_rate)
                    end = l2_end if l2_end > end else end
            if from_hbm > 0:
                port_end = self.port.place(start, from_hbm / self.share)
                end = port_end if port_end > end else end
        complete = start + op[5] + nbytes / op[6]
        return end, (complete if complete > end else end)

    def _l2_miss(self, p: int, index: int) -> float:
        """The miss bytes of pipe ``p``'s next GM read, which must be instruction ``index``."""
        queue = self.misses.get(p)
        if not queue or queue[0][0] != index:
            static = self.trace.statics[index]
            raise SimulatorError(f"the GM spans of the trace do not match its records at instruction #{static.index} "
                                 f"`{static.text}` (a data_move from GM recorded no span)",
                                 kernel=self.trace.kernel_name, block=self.block, instr_index=static.index)
        return queue.popleft()[1]

    def _sync(self, op, record, start: float) -> bool:
        """set_flag / wait_flag / pipe_barrier on a pipe other than S, from ``start`` on (False: the flag it
        waits for has not been set yet)."""
        kind, p, free = op[0], op[1], self.free
        if kind == WAIT_FLAG:
            waiting = self.flags.get(op[2] + (record[1],) if op[3] else op[2])
            if not waiting:
                return False
            arrived = waiting.popleft()
            start = arrived if arrived > start else start
            free[p] = start + self.flag_cycles
            self.intervals[p].append((start, free[p], record[0]))
            return True
        if kind == SET_FLAG:     # fires once everything earlier on the pipe is complete
            done = self.done[p]
            free[p] = start + self.flag_cycles
            self.intervals[p].append((start, free[p], record[0]))
            self._raise(op[2] + (record[1],) if op[3] else op[2], (done if done > start else start) +
                        self.flag_cycles, op[4])
            return True
        return self._barrier(op, record, start)

    def _after_producers(self, p: int, index: int, start: float) -> float:
        """``start``, or later when an in-flight instruction writes what instruction ``index`` reads."""
        inflight = self.inflight[p]
        while inflight and inflight[0][0] <= start:
            inflight.popleft()
        row = self.pairs.get(index)                     # the footprints' memo for this reader, read without a call
        if row is None:
            row = {}
        for usable, writer in reversed(inflight):       # latest result first: usable times rise along the queue
            answer = row.get(writer)
            if answer is None:
                answer = self.may_depend(writer, index)
            if answer:
                return usable
        return start

    def _cube(self, op, units: tuple, start: float) -> tuple:
        """(pipe free, complete) of an mmad of ``units`` = (m, k, n) starting at ``start``."""
        if self.tiles is None:
            self.tiles = {}
        tiles = self.tiles.get((units, op[2]))
        if tiles is None:
            tiles = self.tiles[(units, op[2])] = cube_tiles(self.chip, units, op[2])
        end, complete = start + tiles + op[3], start + tiles + op[4]
        return end, (complete if complete > end else end)

    def _barrier(self, op, record, start: float) -> bool:
        """pipe_barrier(pipe): later work waits for earlier work; a pipe with work outstanding drains."""
        p = op[1]
        done = self.done[p]
        end = start
        if done > start:
            end = done + op[2]
            if op[2]:
                self.intervals[p].append((done, end, record[0]))
        self.free[p] = self.done[p] = end
        return True

    def _raise(self, key: tuple, when: float, dst: int) -> None:
        waiting = self.flags.get(key)
        if waiting is None:
            waiting = self.flags[key] = deque()
        waiting.append(when)
        if self.queues[dst]:
            self._advance(dst)

    def _advance(self, p: int) -> None:
        queue, ops = self.queues[p], self.ops
        while queue:
            ready, record = queue[0]
            if not self._run(ops[record[0]], record, ready):
                return
            queue.popleft()

    def _hang(self, record) -> SyncError:
        static = self.trace.statics[record[0]]
        src, dst, event = static.flag if static.flag else ("?", "?", "?")
        event = record[1] if event == -1 else event
        return SyncError(f"pipe {static.pipe} waits forever at instruction #{static.index} `{static.text}`: "
                         f"no set_flag({src}, {dst}, {event}) can answer it (the core would hang)",
                         kernel=self.trace.kernel_name, block=self.block, instr_index=static.index)
