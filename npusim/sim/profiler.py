"""Profiling kernel launches: a per-kernel table, a Chrome-trace JSON (opens in Perfetto), an optional PNG.

    from npusim.sim import profiler
    with profiler.profile() as prof:
        ...                                  # anything that launches kernels
    print(prof.table())
    prof.write_chrome_trace("trace.json")    # one track per core and pipe

The profiler only reads launch records (trace + cost model report); it never runs anything itself.  An active
session is a sink of a runtime store (:mod:`npusim.sim.runtime`): every device of that store reports its launches
to it, whichever target and thread they run on, so ``npusim profile SCRIPT`` sees every launch the script makes.
"""
from __future__ import annotations

import json
from contextlib import contextmanager

PIPE_ORDER = ("S", "V", "M", "MTE1", "MTE2", "MTE3", "FIX")


@contextmanager
def profile(runtime=None):
    """Record every kernel launch made inside the ``with`` block by the devices of ``runtime``'s store (None: the
    current runtime's); yields the :class:`ProfileSession`."""
    if runtime is None:
        from npusim.sim.runtime import current_runtime
        runtime = current_runtime()
    session = ProfileSession()
    sinks = runtime.store.sinks
    sinks.append(session)
    try:
        yield session
    finally:
        sinks.remove(session)


class ProfileSession:
    """The launches recorded by one :func:`profile` block."""

    def __init__(self):
        self.records: list = []

    def record(self, launch) -> None:
        """Add one finished launch (a LaunchRecord; called by the device that ran it)."""
        self.records.append(launch)

    def rows(self) -> list:
        """One dict per launch: name, block_dim, cycles, time_us, busiest_pipe, utilisation{pipe}, ub_bytes."""
        rows = []
        for record in self.records:
            cost = record.cost
            rows.append({
                "name": record.kernel.name, "chip": record.chip.name, "block_dim": record.block_dim,
                "cycles": cost.total_cycles, "time_us": cost.time_us, "busiest_pipe": cost.bottleneck_pipe,
                "utilisation": cost.utilisation(), "ub_bytes": record.trace.scope_high_water.get("UB", 0),
                "instructions": record.trace.instruction_count, "host_seconds": record.trace.wall_seconds,
            })
        return rows

    def table(self) -> str:
        """The per-kernel table as text."""
        rows = self.rows()
        if not rows:
            return "no NPU kernel was launched"
        pipes = [p for p in PIPE_ORDER if any(p in r["utilisation"] for r in rows)]
        header = ["kernel", "chip", "blocks", "cycles", "time(us)", "busiest"] + [f"{p}%" for p in pipes] + \
            ["UB peak", "instrs"]
        lines = [header]
        for r in rows:
            lines.append([r["name"], r["chip"], str(r["block_dim"]), f"{r['cycles']:.0f}", f"{r['time_us']:.2f}",
                          r["busiest_pipe"]] + [f"{100 * r['utilisation'].get(p, 0.0):.1f}" for p in pipes] +
                         [_kib(r["ub_bytes"]), str(r["instructions"])])
        widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
        text = ["  ".join(cell.ljust(w) if i == 0 else cell.rjust(w) for i, (cell, w) in enumerate(zip(line, widths)))
                for line in lines]
        return "\n".join([text[0], "-" * len(text[0])] + text[1:])

    def chrome_trace(self) -> dict:
        """Trace-event JSON: one process per core, one thread per pipe; launches follow one another in time."""
        events, offset_us, named = [], 0.0, set()
        for record in self.records:
            cost, clock = record.cost, record.chip.clock_mhz
            events.append({"name": record.kernel.name, "ph": "X", "pid": 0, "tid": 0, "ts": offset_us,
                           "dur": cost.time_us, "args": {"block_dim": record.block_dim,
                                                        "cycles": cost.total_cycles}})
            for core in cost.cores:
                for pipe, intervals in core.intervals.items():
                    pid, tid = core.core + 1, PIPE_ORDER.index(pipe) if pipe in PIPE_ORDER else 99
                    named.add((pid, tid, pipe))
                    for start, end, index in intervals:
                        static = record.trace.statics[index]
                        events.append({"name": static.opcode, "ph": "X", "pid": pid, "tid": tid,
                                       "ts": offset_us + start / clock, "dur": (end - start) / clock,
                                       "args": {"instr": index, "op": static.text, "kernel": record.kernel.name}})
            offset_us += cost.time_us
        return {"traceEvents": _track_names(named) + events, "displayTimeUnit": "ns"}

    def write_chrome_trace(self, path) -> None:
        with open(path, "w", encoding="utf-8") as handle:
            json.dump(self.chrome_trace(), handle)

    def write_png(self, path, max_cores: int = 8) -> bool:
        """Draw the pipes' timelines of the first ``max_cores`` cores; False when matplotlib is not installed."""
        try:
            import matplotlib
            matplotlib.use("Agg")
            import matplotlib.pyplot as plt
        except ImportError:
            return False
        rows, offset_us = [], 0.0
        for record in self.records:
            cost, clock = record.cost, record.chip.clock_mhz
            for core in cost.cores[:max_cores]:
                for pipe, intervals in sorted(core.intervals.items(), key=lambda kv: PIPE_ORDER.index(kv[0])):
                    bars = [(offset_us + s / clock, (e - s) / clock) for s, e, _ in intervals]
                    rows.append((f"{record.kernel.name} c{core.core} {pipe}", pipe, bars))
            offset_us += cost.time_us
        fig, axis = plt.subplots(figsize=(12, max(2.0, 0.3 * len(rows))))
        for i, (_, pipe, bars) in enumerate(rows):
            axis.broken_barh(bars, (i - 0.4, 0.8), facecolors=f"C{PIPE_ORDER.index(pipe) % 10}")
        axis.set_yticks(range(len(rows)), [label for label, _, _ in rows], fontsize=6)
        axis.invert_yaxis()                                   # core 0, pipe S at the top
        axis.set_xlabel("time (us)")
        fig.tight_layout()
        fig.savefig(path, dpi=120)
        plt.close(fig)
        return True


def _track_names(named: set) -> list:
    """Metadata naming the tracks: process 0 "device" (one slice per launch), process c+1 "core c" with one
    thread per pipe, ordered S, V, M, MTE1, MTE2, MTE3, FIX."""
    meta = [{"name": "process_name", "ph": "M", "pid": 0, "args": {"name": "device"}},
            {"name": "thread_name", "ph": "M", "pid": 0, "tid": 0, "args": {"name": "kernels"}}]
    for pid in sorted({pid for pid, _, _ in named}):
        meta.append({"name": "process_name", "ph": "M", "pid": pid, "args": {"name": f"core {pid - 1}"}})
        meta.append({"name": "process_sort_index", "ph": "M", "pid": pid, "args": {"sort_index": pid}})
    for pid, tid, pipe in sorted(named):
        meta.append({"name": "thread_name", "ph": "M", "pid": pid, "tid": tid, "args": {"name": pipe}})
        meta.append({"name": "thread_sort_index", "ph": "M", "pid": pid, "tid": tid, "args": {"sort_index": tid}})
    return meta


def _kib(nbytes: int) -> str:
    return f"{nbytes / 1024:.1f}K"
