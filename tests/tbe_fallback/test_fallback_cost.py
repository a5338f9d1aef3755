"""The scalar-pipe price of tvm_call: exact counts on small programs, the formula, scaling, the profile."""
import json

import numpy as np
import pytest
import tvm
from tvm import te

import npusim.sim as sim
from npusim.sim.isa.tvm_call.program import load_program
from fallback_helpers import build, run


def _program(kernel):
    return load_program(kernel.body[0].arg("program"), sim.current_runtime().store.sim.programs)


def _copy_kernel(n, dtype="float32"):
    x = te.placeholder((n,), dtype, name="x")
    y = te.compute((n,), lambda i: x[i], name="y")
    return build(y, [x, y], name=f"copy_{n}")


def test_copy_counts_one_loop_op_and_two_accesses_per_element():
    program = _program(_copy_kernel(100))
    assert (program.alu_ops, program.mem_accesses) == (100, 200)


def test_arithmetic_and_index_math_are_counted():
    x = te.placeholder((6, 5), "float32", name="x")
    y = te.compute((5, 6), lambda i, j: x[j, i] * 2.0 + 1.0, name="y")
    program = _program(build(y, [x, y]))
    # per element: mul + add (value), j*5+i (2), i*6+j (2), inner loop control 1; plus 5 outer iterations
    assert program.mem_accesses == 60
    assert program.alu_ops == 30 * 7 + 5


def test_reduction_init_counts_once_per_row():
    x = te.placeholder((4, 8), "float32", name="x")
    k = te.reduce_axis((0, 8), "k")
    y = te.compute((4,), lambda i: te.sum(x[i, k], axis=k), name="y")
    program = _program(build(y, [x, y]))
    # 32 x (load x, load y, store y) + 4 init stores
    assert program.mem_accesses == 32 * 3 + 4


def test_cycles_follow_the_formula_on_the_scalar_pipe():
    kernel = _copy_kernel(256)
    program = _program(kernel)
    _, record = run(kernel, [np.ones(256, np.float32)])
    chip = record.chip
    cost = record.cost
    assert cost.total_cycles == pytest.approx(program.alu_ops * chip.scalar_alu_cycles +
                                              program.mem_accesses * chip.scalar_mem_cycles)
    assert cost.bottleneck_pipe == "S"
    assert set(cost.critical_core.intervals) == {"S"}
    assert record.trace.statics[0].pipe == "S" and record.trace.statics[0].opcode == "tvm_call"


def test_cost_scales_with_element_count():
    small, large = _copy_kernel(1000), _copy_kernel(8000)
    _, rec_small = run(small, [np.zeros(1000, np.float32)])
    _, rec_large = run(large, [np.zeros(8000, np.float32)])
    assert rec_large.cost.total_cycles / rec_small.cost.total_cycles == pytest.approx(8.0, rel=0.01)


def test_scalar_pipe_is_far_slower_than_a_vector_add_would_be():
    """1024 fp16 elements: the vector unit needs 8 repeats; the scalar program needs thousands of cycles."""
    _, record = run(_copy_kernel(1024, "float16"), [np.zeros(1024, np.float16)])
    assert record.cost.total_cycles > 1024 * record.chip.scalar_mem_cycles


def test_profile_records_the_launch_on_pipe_s(tmp_path):
    kernel = _copy_kernel(64)
    with sim.profile() as prof:
        run(kernel, [np.zeros(64, np.float32)])
    (row,) = prof.rows()
    assert row["name"] == "copy_64" and row["busiest_pipe"] == "S" and row["instructions"] == 1
    assert "copy_64" in prof.table()
    path = tmp_path / "trace.json"
    prof.write_chrome_trace(path)
    events = json.loads(path.read_text())["traceEvents"]
    calls = [e for e in events if e.get("name") == "tvm_call"]
    assert len(calls) == 1 and calls[0]["args"]["op"].startswith("tvm_call(program=<TVMScript")


def test_if_arms_count_the_costlier_one():
    x = te.placeholder((10,), "float32", name="x")
    cheap = te.compute((10,), lambda i: tvm.tirx.if_then_else(x[i] > 0.0, x[i], x[i] * 2.0 + 1.0), name="y")
    program = _program(build(cheap, [x, cheap]))
    # per element: 1 loop op, compare 1, if_then_else 1, costlier arm (mul + add) 2; loads: cond 1 + arm 1; store 1
    assert (program.alu_ops, program.mem_accesses) == (50, 30)
