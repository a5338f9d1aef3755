"""Device runtime (memory, streams, launches) and the profiler (table, Chrome trace, `npusim profile`)."""
import json
import textwrap

import numpy as np
import pytest

from npusim.errors import DeviceMemoryError
from npusim.sim import Device, KernelBuilder, default_device, profile
from npusim.sim_cli import profile_main


def test_malloc_memcpy_free():
    dev = Device("Ascend910")
    data = np.arange(100, dtype=np.float32)
    ptr = dev.to_device(data)
    assert np.array_equal(dev.from_device(ptr, (100,), np.float32), data)
    other = dev.malloc(400)
    dev.memcpy(other, ptr, 400)
    assert np.array_equal(dev.from_device(other + 40, (90,), np.float32), data[10:])
    with pytest.raises(DeviceMemoryError, match="overrun"):
        dev.from_device(other + 40, (100,), np.float32)
    dev.free(other)
    with pytest.raises(DeviceMemoryError, match="freed"):
        dev.free(other)
    with pytest.raises(DeviceMemoryError, match="freed"):
        dev.from_device(other, (1,), np.float32)
    with pytest.raises(DeviceMemoryError, match="positive"):
        dev.malloc(0)


def _copy_kernel(with_workspace=False):
    kb = KernelBuilder("copy", block_dim=2)
    src = kb.tensor("float16", (512,), "GM", "src")
    dst = kb.tensor("float16", (512,), "GM", "dst")
    ub = kb.tensor("float16", (256,), "UB", "ub")
    off = kb.block_idx * 256
    kb.data_move(ub, src[off], 0, 1, 16, 0, 0)
    if with_workspace:
        ws = kb.tensor("float16", (512,), "GM", "ws", is_workspace=True)
        kb.data_move(ws[off], ub, 0, 1, 16, 0, 0)
        kb.data_move(ub, ws[off], 0, 1, 16, 0, 0)
    kb.data_move(dst[off], ub, 0, 1, 16, 0, 0)
    return kb.build(inputs=[src], outputs=[dst])


def test_launch_is_asynchronous_until_synchronize():
    dev = Device("Ascend910")
    data = np.arange(512).astype(np.float16)
    src, dst = dev.to_device(data), dev.malloc(1024)
    stream = dev.create_stream()
    record = dev.launch(_copy_kernel(), [src, dst], stream=stream)
    assert not record.done
    stream.synchronize()
    assert record.done and record.trace.block_dim == 2
    assert np.array_equal(dev.from_device(dst, (512,), np.float16), data)


def test_workspace_allocated_when_not_passed():
    dev = Device("Ascend910")
    kernel = _copy_kernel(with_workspace=True)
    assert kernel.params[-1].kind == "workspace"
    data = np.arange(512).astype(np.float16)
    src, dst = dev.to_device(data), dev.malloc(1024)
    dev.run(kernel, [src, dst])
    assert np.array_equal(dev.from_device(dst, (512,), np.float16), data)


def test_default_device_follows_chip():
    from npusim.sim import set_chip
    first = default_device()
    assert default_device() is first
    set_chip("Ascend310")
    try:
        assert default_device().chip.name == "Ascend310"
    finally:
        set_chip(None)


def test_profile_session_table_and_chrome_trace(tmp_path):
    dev = Device("Ascend910")
    data = np.arange(512).astype(np.float16)
    src, dst = dev.to_device(data), dev.malloc(1024)
    with profile() as session:
        dev.run(_copy_kernel(), [src, dst])
        dev.run(_copy_kernel(), [src, dst], block_dim=1)
    assert len(session.records) == 2
    table = session.table()
    assert "copy" in table and "MTE2" in table and "UB peak" in table
    rows = session.rows()
    assert rows[0]["block_dim"] == 2 and rows[0]["ub_bytes"] == 512 and rows[0]["busiest_pipe"] == "MTE2"
    trace = session.chrome_trace()
    names = {(e["pid"], e["args"]["name"]) for e in trace["traceEvents"] if e["name"] == "process_name"}
    assert {(1, "core 0"), (2, "core 1")} <= names
    threads = {e["args"]["name"] for e in trace["traceEvents"] if e["name"] == "thread_name"}
    assert {"MTE2", "MTE3"} <= threads
    slices = [e for e in trace["traceEvents"] if e["ph"] == "X" and e["pid"] > 0]
    assert slices and all(e["dur"] > 0 for e in slices)
    second = [e for e in trace["traceEvents"] if e["ph"] == "X" and e["pid"] == 0][1]
    assert second["ts"] > 0
    path = tmp_path / "t.json"
    session.write_chrome_trace(path)
    assert json.loads(path.read_text())["traceEvents"]


def test_profile_command_runs_script(tmp_path, capsys):
    script = tmp_path / "user_script.py"
    script.write_text(textwrap.dedent("""
        import sys
        import numpy as np
        from npusim.sim import Device, KernelBuilder
        kb = KernelBuilder("from_script")
        gm = kb.tensor("float32", (64,), "GM", "gm")
        ub = kb.tensor("float32", (64,), "UB", "ub")
        kb.data_move(ub, gm, 0, 1, 8, 0, 0)
        kb.vmuls(64, ub, ub, 3.0, 1, 1, 1, 8, 8)
        kb.data_move(gm, ub, 0, 1, 8, 0, 0)
        dev = Device()
        ptr = dev.to_device(np.ones(64, np.float32))
        dev.run(kb.build(), [ptr])
        print("script says", dev.from_device(ptr, (64,), np.float32)[0], sys.argv[1:])
    """))
    trace_path = tmp_path / "trace.json"
    status = profile_main(["--soc", "Ascend910B1", "--trace", str(trace_path), str(script), "--flag", "x"])
    out = capsys.readouterr().out
    assert status == 0
    assert "script says 3.0 ['--flag', 'x']" in out
    assert "from_script" in out and "Ascend910B1" in out
    assert json.loads(trace_path.read_text())["traceEvents"]
    from npusim.sim import set_chip
    set_chip(None)


def test_profile_missing_script_is_a_short_error(tmp_path, capsys):
    status = profile_main([str(tmp_path / "missing.py")])
    assert status == 2
    assert "no such script" in capsys.readouterr().err


def test_png_when_matplotlib_available(tmp_path):
    dev = Device("Ascend910")
    src, dst = dev.to_device(np.zeros(512, np.float16)), dev.malloc(1024)
    with profile() as session:
        dev.run(_copy_kernel(), [src, dst])
    written = session.write_png(tmp_path / "t.png")
    try:
        import matplotlib  # noqa: F401
        assert written and (tmp_path / "t.png").stat().st_size > 0
    except ImportError:
        assert written is False


def _pipelined_kernel(block_dim):
    """Each block: GM->UB (MTE2), vadds (V), UB->GM (MTE3), ordered by flags, twice."""
    kb = KernelBuilder("pipelined", block_dim=block_dim)
    src = kb.tensor("float16", (block_dim * 2048,), "GM", "src")
    dst = kb.tensor("float16", (block_dim * 2048,), "GM", "dst")
    ub = kb.tensor("float16", (1024,), "UB", "ub")
    with kb.for_range(0, 2) as i:
        off = kb.block_idx * 2048 + i * 1024
        kb.data_move(ub, src[off], 0, 1, 64, 0, 0)
        kb.set_flag("MTE2", "V", 0)
        kb.wait_flag("MTE2", "V", 0)
        kb.vadds(128, ub, ub, 1.0, 8, 1, 1, 8, 8)
        kb.set_flag("V", "MTE3", 0)
        kb.wait_flag("V", "MTE3", 0)
        kb.data_move(dst[off], ub, 0, 1, 64, 0, 0)
        kb.pipe_barrier("PIPE_ALL")
    return kb.build(inputs=[src], outputs=[dst])


def test_chrome_trace_is_valid_with_one_track_per_core_and_pipe(tmp_path):
    dev = Device("Ascend910")
    src, dst = dev.to_device(np.zeros(4 * 2048, np.float16)), dev.malloc(4 * 2048 * 2)
    with profile() as session:
        dev.run(_pipelined_kernel(4), [src, dst])
        dev.run(_pipelined_kernel(2), [src, dst])
    path = tmp_path / "trace.json"
    session.write_chrome_trace(path)
    events = json.loads(path.read_text())["traceEvents"]
    meta = [e for e in events if e["ph"] == "M"]
    slices = [e for e in events if e["ph"] == "X"]
    assert all(isinstance(e["pid"], int) and isinstance(e["tid"], int) and e["ts"] >= 0 and e["dur"] >= 0
               for e in slices)
    process_names = [(e["pid"], e["args"]["name"]) for e in meta if e["name"] == "process_name"]
    assert len(process_names) == len({pid for pid, _ in process_names})          # each process named once
    thread_names = {(e["pid"], e["tid"]): e["args"]["name"] for e in meta if e["name"] == "thread_name"}
    assert len(thread_names) == len([e for e in meta if e["name"] == "thread_name"])
    tracks = {(e["pid"], e["tid"]) for e in slices}
    assert tracks <= set(thread_names)                                            # every track is named
    for core in range(4):
        names = {thread_names[t] for t in tracks if t[0] == core + 1}
        assert {"V", "MTE2", "MTE3"} <= names, (core, names)
    assert dict(process_names)[4] == "core 3"
    by_track = {}
    for e in slices:
        by_track.setdefault((e["pid"], e["tid"]), []).append((e["ts"], e["ts"] + e["dur"]))
    for spans in by_track.values():                                               # slices on a track never overlap
        spans.sort()
        assert all(b[0] >= a[1] - 1e-9 for a, b in zip(spans, spans[1:]))
    kernels = [e for e in slices if e["pid"] == 0]
    assert [e["name"] for e in kernels] == ["pipelined", "pipelined"]
    assert kernels[1]["ts"] == pytest.approx(kernels[0]["ts"] + kernels[0]["dur"])


def test_table_has_the_issue_columns_and_ub_high_water_mark():
    dev = Device("Ascend910")
    src, dst = dev.to_device(np.zeros(4 * 2048, np.float16)), dev.malloc(4 * 2048 * 2)
    with profile() as session:
        record = dev.run(_pipelined_kernel(4), [src, dst])
    header = session.table().splitlines()[0].split()
    assert header[:6] == ["kernel", "chip", "blocks", "cycles", "time(us)", "busiest"]
    assert {"V%", "MTE2%", "MTE3%", "UB"} <= set(header)
    row = session.rows()[0]
    assert row["ub_bytes"] == 2048 and row["block_dim"] == 4
    assert row["cycles"] == record.cost.total_cycles and row["time_us"] == pytest.approx(row["cycles"] / 1000.0)
    assert set(row["utilisation"]) == set(record.chip.pipes)


def test_every_launch_starts_with_poisoned_local_memory():
    """Local arenas are reused between launches; each launch still sees the poison byte, never the last data."""
    def kernel(write: bool):
        kb = KernelBuilder("ub_probe", block_dim=1)
        src = kb.tensor("float16", (128,), "GM", "src")
        dst = kb.tensor("float16", (128,), "GM", "dst")
        ub = kb.tensor("float16", (128,), "UB", "ub")
        if write:
            kb.data_move(ub, src, 0, 1, 8, 0, 0)
        kb.data_move(dst, ub, 0, 1, 8, 0, 0)
        return kb.build(inputs=[src], outputs=[dst])

    dev = Device("Ascend910")
    src = dev.to_device(np.arange(128, dtype=np.float16))
    dst = dev.malloc(256)
    for _ in range(3):
        dev.run(kernel(True), [src, dst])
        assert np.array_equal(dev.from_device(dst, (128,), np.float16), np.arange(128, dtype=np.float16))
        dev.run(kernel(False), [src, dst])
        assert np.all(dev.from_device(dst, (128,), np.uint16) == 0xFFFF)
