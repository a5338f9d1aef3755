"""The state of one lockstep wave: blocks that run on different cores, executed instruction by instruction
together (see :mod:`npusim.sim.lockstep`).

Row ``r`` of a wave is core ``r``; every local scope is one 2-D arena (rows x bytes), so a local operand at the
same address in every block is one 2-D slice.  While every row runs (``rows`` None) trace records go to one
shared list; when control flow splits the rows (``rows``: the active row indices) the shared records are copied
to each row's own list first and records are appended per row.  Flags and the atomic mode are shared while the
rows agree and kept per row once they have split.  The GM spans of data moves (:mod:`npusim.sim.trace`) go to
each row's own list.
"""
from __future__ import annotations

import numpy as np

from npusim.errors.sim import SimulatorError
from npusim.sim.trace import SpanTrips


class BatchFallback(SimulatorError):
    """The batch cannot run this launch (or this part of it) faithfully; the launch runs block by block."""


class CoreRegisters:
    """Per-core registers that outlive a block (CMPMASK), for instructions run block by block in a batch."""

    __slots__ = ("cmpmask",)

    def __init__(self):
        self.cmpmask = None


class RowContext:
    """What a single-block ``run`` closure reads and writes, for one row of a batch (instructions that run block
    by block inside a batch: local memory, registers, CMPMASK, the row's trace records)."""

    __slots__ = ("env", "append", "touch", "views", "gm_hi", "flags", "core_memory", "atomic")

    def __init__(self, views: dict, gm_hi: dict, core: CoreRegisters):
        self.views, self.gm_hi, self.core_memory = views, gm_hi, core
        self.env, self.append, self.touch, self.flags, self.atomic = [], None, None, {}, None

    @property
    def cmpmask(self):
        return self.core_memory.cmpmask

    @cmpmask.setter
    def cmpmask(self, bits):
        self.core_memory.cmpmask = bits


class BatchContext:
    """One wave: ``n`` rows (cores) running blocks ``bids``; ``env`` the batch environment, ``views`` local
    keys -> 2-D typed views (rows x elements) and GM keys -> the GM views, ``gm`` the :class:`GmLog`."""

    def __init__(self, n: int, bids: np.ndarray, env: list, views: dict, gm_hi: dict, gm, cores: list):
        self.n = n
        self.bids = bids
        self.bids_obj = np.array(bids.tolist() + [None], dtype=object)[:-1]
        self.env = env
        self.views = views
        self.gm_hi = gm_hi
        self.gm = gm
        self.cores = cores
        self.rows = None
        self.lists = [[] for _ in range(n)]
        self.spans = [[] for _ in range(n)]      # each row's data moves' GM spans
        self.shared: list = []
        self.append = self.shared.append
        self.flags: dict = {}
        self.row_flags = None
        self.atomic = None
        self.row_atomic = None
        self._offsets: dict = {}
        self._stack: list = []
        self.row_contexts = None

    # -- rows ------------------------------------------------------------------------------------------------
    def offsets(self, coef: int) -> np.ndarray:
        """``coef * block_idx`` for every active row (int64; cached per coefficient for all rows)."""
        found = self._offsets.get(coef)
        if found is None:
            found = self._offsets[coef] = self.bids * coef
        return found if self.rows is None else found[self.rows]

    def active_bids_obj(self) -> np.ndarray:
        """The active rows' block indices as Python ints (object array)."""
        return self.bids_obj if self.rows is None else self.bids_obj[self.rows]

    def active_bids(self) -> np.ndarray:
        return self.bids if self.rows is None else self.bids[self.rows]

    def active_count(self) -> int:
        return self.n if self.rows is None else self.rows.size

    def select(self, values):
        """The active rows' entries of a per-row array (values that are not arrays pass through)."""
        if self.rows is None or not isinstance(values, np.ndarray):
            return values
        return values[self.rows]

    def enter(self, rows: np.ndarray) -> None:
        """Run the following instructions on ``rows`` only (sorted row indices, a subset of the active ones)."""
        if self.rows is None:
            self._split()
        self._stack.append((self.rows, self.append))
        self.rows = rows
        chosen = [self.lists[r] for r in rows.tolist()]

        def append(record):
            for records in chosen:
                records.append(record)
        self.append = append

    def leave(self) -> None:
        self.rows, self.append = self._stack.pop()

    def _split(self) -> None:
        """Copy the shared records to every row and start per-row flags / atomic modes."""
        self.flush()
        if self.row_flags is None:
            self.row_flags = [{} for _ in range(self.n)]

    def append_records(self, records, times: int = 1) -> None:
        """Append ``records`` (trace records, in order; the whole sequence ``times`` over) to every active row's
        trace: what running those instructions ``times`` times one after another appends."""
        if self.rows is None:
            self.shared.extend(records * times if times != 1 else records)
            return
        for _ in range(times):
            for record in records:
                self.append(record)

    def touch(self, index: int, param: int, starts, geometry: tuple, trips: int = 1, step: int = 0) -> None:
        """Append a data_move's GM span to every active row's spans: ``starts`` one byte start for all rows or
        one per active row, ``geometry`` (nburst, burst_bytes, pitch_bytes); ``trips`` moves whose starts step
        by ``step`` bytes (a loop's trips run as one copy) append one span each."""
        rows = range(self.n) if self.rows is None else self.rows.tolist()
        nburst, burst_bytes, pitch = geometry
        if isinstance(starts, np.ndarray):
            starts = starts.tolist()
        else:
            starts = [starts] * len(rows)
        spans = self.spans
        if trips == 1:
            for r, start in zip(rows, starts):
                spans[r].append((index, param, start, nburst, burst_bytes, pitch))
        else:
            for r, start in zip(rows, starts):
                spans[r].append(SpanTrips(index, param, start, nburst, burst_bytes, pitch, trips, step))

    def flush(self) -> None:
        if self.shared:
            for records in self.lists:
                records.extend(self.shared)
            self.shared.clear()

    def row_contexts_for(self) -> list:
        """One :class:`RowContext` per row (made on first use)."""
        if self.row_contexts is None:
            local = [key for key, view in self.views.items() if view.ndim == 2]
            self.row_contexts = []
            for r in range(self.n):
                views = dict(self.views)
                views.update({key: self.views[key][r] for key in local})
                self.row_contexts.append(RowContext(views, self.gm_hi, self.cores[r]))
        return self.row_contexts

    # -- flags and atomic mode ---------------------------------------------------------------------------------
    def flag(self, key, delta: int) -> None:
        if self.rows is None:
            self.flags[key] = self.flags.get(key, 0) + delta
            return
        for r in self.rows.tolist():
            counts = self.row_flags[r]
            counts[key] = counts.get(key, 0) + delta

    def unanswered(self) -> bool:
        """Some row waited for a flag more often than it was raised."""
        for r in range(self.n):
            extra = self.row_flags[r] if self.row_flags is not None else {}
            for key in set(self.flags) | set(extra):
                if self.flags.get(key, 0) + extra.get(key, 0) < 0:
                    return True
        return False

    def set_atomic(self, mode) -> None:
        if self.rows is None:
            self.atomic, self.row_atomic = mode, None
            return
        if self.row_atomic is None:
            self.row_atomic = [self.atomic] * self.n
        for r in self.rows.tolist():
            self.row_atomic[r] = mode

    def atomic_modes(self) -> list:
        """The atomic mode of every active row."""
        if self.row_atomic is None:
            return [self.atomic] * self.active_count()
        rows = range(self.n) if self.rows is None else self.rows.tolist()
        return [self.row_atomic[r] for r in rows]

    def uniform_atomic(self):
        """(True, mode) when every active row has the same atomic mode, else (False, None)."""
        if self.row_atomic is None:
            return True, self.atomic
        modes = self.atomic_modes()
        first = modes[0]
        return (True, first) if all(m is first for m in modes) else (False, None)

    # -- registers ---------------------------------------------------------------------------------------------
    def set_register(self, slot: int, values) -> None:
        """Store a register: one Python value for every active row, or an object array with one value per
        active row."""
        if self.rows is None:
            self.env[slot] = values
            return
        current = self.env[slot]
        if not isinstance(current, np.ndarray):
            full = np.empty(self.n, dtype=object)
            full[:] = [current] * self.n
            current = full
        else:
            current = current.copy()
        if isinstance(values, np.ndarray):
            current[self.rows] = values
        else:
            for r in self.rows.tolist():
                current[r] = values
        self.env[slot] = current
