"""Bad scalar-pipe kernels raise typed errors (never crash the process): build errors, operand mismatches,
GM bounds, out-of-range indices inside the program, integer division by zero."""
import numpy as np
import pytest
import tvm
from tvm import te

import npusim.sim as sim
from npusim.errors import (DeviceMemoryError, InvalidOperandError, OutOfBoundsError, SimulatorError,
                           TbeArgumentError)
from npusim.sim.isa.tvm_call import program_kernel
from npusim.sim.kernel import BufRef, Param, Var
from fallback_helpers import build, run


def _sum_rows_text():
    x = te.placeholder((10, 4), "float32", name="x")
    k = te.reduce_axis((0, 4), "k")
    y = te.compute((10,), lambda i: te.sum(x[i, k], axis=k), name="y")
    return build(y, [x, y]).body[0].arg("program")


def _kernel(params, args=None, text=None, name="bad_kernel"):
    args = args if args is not None else tuple(BufRef(p.name) for p in params)
    return program_kernel(name, text or _sum_rows_text(), tuple(params), tuple(args))


def _launch(kernel, arrays):
    device = sim.Device()
    device.run(kernel, [device.to_device(a) for a in arrays])


def test_mismatched_argument_shape_is_an_operand_error():
    kernel = _kernel([Param("x", "gm", "float32", (4, 10)), Param("y", "gm", "float32", (10,))])
    with pytest.raises(InvalidOperandError, match=r"x has shape \(4, 10\) but the program's x has shape \(10, 4\)"):
        _launch(kernel, [np.zeros((4, 10), np.float32), np.zeros(10, np.float32)])


def test_mismatched_dtype_and_argument_count():
    kernel = _kernel([Param("x", "gm", "float16", (10, 4)), Param("y", "gm", "float32", (10,))])
    with pytest.raises(InvalidOperandError, match="x is float16 but the program's x is float32"):
        _launch(kernel, [np.zeros((10, 4), np.float16), np.zeros(10, np.float32)])
    kernel = _kernel([Param("x", "gm", "float32", (10, 4))])
    with pytest.raises(InvalidOperandError, match=r"takes 2 argument\(s\) \(x, y\), got 1"):
        _launch(kernel, [np.zeros((10, 4), np.float32)])


def test_scalar_given_where_a_tensor_is_expected():
    kernel = _kernel([Param("x", "gm", "float32", (10, 4)), Param("n", "scalar", "int32")],
                     args=(BufRef("x"), Var("n")))
    device = sim.Device()
    with pytest.raises(InvalidOperandError, match=r"args\[1\] must be a tensor operand"):
        device.run(kernel, [device.to_device(np.zeros((10, 4), np.float32)), 3])


def test_text_that_is_not_tvmscript():
    kernel = _kernel([Param("x", "gm", "float32", (4,))], text="def broken(:")
    with pytest.raises(InvalidOperandError, match="does not parse as TVMScript"):
        _launch(kernel, [np.zeros(4, np.float32)])


def test_window_beyond_the_declared_tensor_and_beyond_the_allocation():
    x = te.placeholder((4,), "float32", name="x")
    y = te.compute((4,), lambda i: x[3 - i], name="y")
    text = build(y, [x, y]).body[0].arg("program")
    params = (Param("big", "gm", "float32", (8,)), Param("out", "gm", "float32", (4,)))
    with pytest.raises(OutOfBoundsError, match="needs 4 from element 6"):
        _launch(program_kernel("past_end", text, params, (BufRef("big", 6), BufRef("out"))),
                [np.zeros(8, np.float32), np.zeros(4, np.float32)])
    undeclared = (Param("big", "gm", "float32", ()), Param("out", "gm", "float32", (4,)))
    with pytest.raises(OutOfBoundsError, match="overflow"):
        _launch(program_kernel("past_alloc", text, undeclared, (BufRef("big", 6), BufRef("out"))),
                [np.zeros(8, np.float32), np.zeros(4, np.float32)])
    wide = te.placeholder((40,), "float32", name="wide")
    copy = te.compute((40,), lambda i: wide[i], name="copy")
    device = sim.Device()
    with pytest.raises(DeviceMemoryError, match="declares 160 bytes"):
        device.run(build(copy, [wide, copy]), [device.malloc(64), device.malloc(160)])


def test_gather_index_out_of_range_raises_out_of_bounds_not_a_crash():
    x = te.placeholder((10, 4), "float32", name="x")
    idx = te.placeholder((3,), "int32", name="idx")
    y = te.compute((3, 4), lambda i, j: x[idx[i], j], name="y")
    kernel = build(y, [x, idx, y], name="gather_bad")
    table = np.zeros((10, 4), np.float32)
    run(kernel, [table, np.array([0, 9, 2], np.int32)])
    for bad in (10, -1, 1 << 20):
        with pytest.raises(OutOfBoundsError, match=r"kernel 'gather_bad'.*out-of-bounds access: x"):
            run(kernel, [table, np.array([0, bad, 2], np.int32)])


def test_guard_respects_the_branch_that_is_taken():
    """Indices read only under a condition are checked only when the condition holds."""
    x = te.placeholder((5,), "float32", name="x")
    idx = te.placeholder((6,), "int32", name="idx")
    y = te.compute((6,), lambda i: tvm.tirx.if_then_else(idx[i] >= 0, x[idx[i]], tvm.tirx.const(-1.0, "float32")),
                   name="y")
    kernel = build(y, [x, idx, y])
    values = np.arange(5, dtype=np.float32)
    (out,), _ = run(kernel, [values, np.array([4, -3, 0, -100, 2, 1], np.int32)])
    np.testing.assert_array_equal(out, [4, -1, 0, -1, 2, 1])
    with pytest.raises(OutOfBoundsError):
        run(kernel, [values, np.array([5, 0, 0, 0, 0, 0], np.int32)])


def test_integer_division_by_zero_is_reported():
    a = te.placeholder((4,), "int32", name="a")
    b = te.placeholder((4,), "int32", name="b")
    q = te.compute((4,), lambda i: tvm.tirx.floordiv(a[i], b[i]), name="q")
    kernel = build(q, [a, b, q], name="int_div")
    (out,), _ = run(kernel, [np.array([7, -7, 9, 1], np.int32), np.array([2, 2, 3, 1], np.int32)])
    np.testing.assert_array_equal(out, [3, -4, 3, 1])
    with pytest.raises(SimulatorError, match="integer division by zero"):
        run(kernel, [np.ones(4, np.int32), np.array([1, 0, 1, 1], np.int32)])


def test_lower_scalar_argument_errors():
    x = te.placeholder((4,), "float32", name="x")
    other = te.placeholder((4,), "float32", name="other")
    y = te.compute((4,), lambda i: x[i] + other[i], name="y")
    with pytest.raises(TbeArgumentError, match="output tensor 'y' is not in tensor_list"):
        build(y, [x, other], name="no_output")
    with pytest.raises(TbeArgumentError, match="placeholder 'other' is not in tensor_list"):
        build(y, [x, y], name="no_input")
    n = tvm.tirx.Var("n", "int32")
    xs = te.placeholder((n,), "float32", name="xs")
    ys = te.compute((n,), lambda i: xs[i], name="ys")
    with pytest.raises(TbeArgumentError, match="symbolic dimension"):
        build(ys, [xs, ys], name="dynamic")
    with pytest.raises(TbeArgumentError, match="empty"):
        build(y, [], name="nothing")


def test_a_tensor_twice_in_the_tensor_list_is_named():
    from npusim.errors import TbeArgumentError
    from te_compat.fallback import lower_scalar
    x = te.placeholder((4, 8), "float16", name="twice")
    with pytest.raises(TbeArgumentError, match="tensor 'twice' appears twice in tensor_list"):
        lower_scalar([x], [x, x], "dup", "test")
