"""Broadcast constants in auto_schedule: casts / roundings of a constant (they used to crash with AttributeError),
element-wise ops of constants only (they used to send the kernel to the scalar pipe), and every other emitter
that can meet a constant operand.  Everything here must stay on the vector path and equal numpy."""
import numpy as np
import pytest
import tvm

import te_compat.dsl as dsl
from npusim.sim import set_chip
from te_compat.fallback import ScalarPipeWarning
from te_compat.schedule.common import UnsupportedPattern
from te_compat.schedule.env import ConstArg
from te_compat.schedule.vec import Loc
from tbe_sched_support import const as raw_const, run, unary as raw_unary

pytestmark = pytest.mark.filterwarnings("error::te_compat.fallback.ScalarPipeWarning")

BIG = {"Ascend910": (1029, 4111), "Ascend310": (131, 1531)}       # beyond one core's UB on each chip
SMALL_SHAPES = ((64, 128), (3, 37), (1001,))                     # (3, 37) / (1001,): rows not whole 32 B blocks


@pytest.fixture(params=["Ascend910", "Ascend310"])
def chip(request):
    set_chip(request.param)
    yield request.param
    set_chip(None)


@pytest.fixture
def restore_chip():
    yield
    set_chip(None)


def shapes(chip_name: str) -> tuple:
    return SMALL_SHAPES + (BIG[chip_name],)


def bc(value, shape, dtype):
    return dsl.broadcast(tvm.tirx.const(value, dtype), shape)


def vector_opcodes(result) -> set:
    return {ins.opcode for _, ins in result.kernel.instructions() if ins.opcode.startswith("v")}


def assert_vector(result) -> None:
    assert result.sched.classification != "fallback", result.sched.fallback_reason


def run_on_tensor(build, value, shape, dtype):
    """The same graph with the constant as a real input tensor (the vector instructions' own answer)."""
    x = tvm.te.placeholder(shape, dtype, name="x")
    return run([build(x)], [x], [np.full(shape, value, dtype)]).outputs[0]


# -- bug A: casts and roundings of a broadcast constant ---------------------------------------------------------
ROUNDINGS = {"floor": np.floor, "ceil": np.ceil, "round": np.rint, "trunc": np.trunc,
             "round_d": lambda v: np.copysign(np.floor(np.abs(v) + 0.5), v)}


@pytest.mark.parametrize("func", sorted(ROUNDINGS))
@pytest.mark.parametrize("dtype", ["float16", "float32"])
@pytest.mark.parametrize("value", [-2.5, 3.5, 0.4, -7.75])
def test_rounding_of_broadcast_constant(chip, func, dtype, value):
    shape = (3, 37)
    result = run([getattr(dsl, func)(bc(value, shape, dtype))], [], [])
    assert_vector(result)
    expected = ROUNDINGS[func](np.float64(np.dtype(dtype).type(value)))
    assert result.outputs[0].dtype == np.int32
    assert np.array_equal(result.outputs[0], np.full(shape, expected, np.int32))
    assert np.array_equal(result.outputs[0], run_on_tensor(getattr(dsl, func), value, shape, dtype))


@pytest.mark.parametrize("src, dst, value", [("float32", "float16", 1.5), ("float32", "float16", 0.1),
                                             ("float16", "float32", -3.25), ("float32", "int32", -2.7),
                                             ("float16", "int32", 9.9), ("int32", "float32", 1000),
                                             ("int32", "float16", -1000), ("float32", "int8", -7.9),
                                             ("int32", "float16", 123456789), ("float32", "float16", 1e6)])
def test_cast_to_of_broadcast_constant(chip, src, dst, value):
    for shape in shapes(chip):
        result = run([dsl.cast_to(bc(value, shape, src), dst)], [], [])
        assert_vector(result)
        on_tensor = run_on_tensor(lambda x: dsl.cast_to(x, dst), value, shape, src)
        assert np.array_equal(result.outputs[0], on_tensor)      # the host fold is the vconv chain bit for bit
    if dst != "int8" and abs(value) < 65504:       # (int8 goes through float16 as TBE's cast_to does; overflow
                                                  # follows the chip's mode, checked against the tensor path above)
        expected = np.dtype(src).type(value).astype(np.float64)
        expected = np.trunc(expected) if dst == "int32" and src != "int32" else expected
        assert np.array_equal(result.outputs[0], np.full(shape, expected).astype(dst))


@pytest.mark.parametrize("dtype", ["float16", "float32"])
def test_cast_constant_inside_a_tensor_graph_tiles_and_splits(chip, dtype):
    for shape in shapes(chip):
        x = tvm.te.placeholder(shape, dtype, name="x")
        scale = dsl.cast_to(bc(1.5, shape, "float32" if dtype == "float16" else "float16"), dtype)
        out = dsl.vmul(dsl.vadd(x, scale), dsl.cast_to(dsl.floor(bc(2.75, shape, dtype)), dtype))
        data = np.random.default_rng(1).uniform(-4, 4, shape).astype(dtype)
        result = run([out], [x], [data])
        assert_vector(result)
        expected = (data + np.dtype(dtype).type(1.5)) * np.dtype(dtype).type(2.0)
        assert np.array_equal(result.outputs[0], expected)
        assert "vconv" not in vector_opcodes(result)            # the constants' casts folded on the host
    assert result.kernel.block_dim > 1 and result.sched.tiles_per_block > 1


# -- bug B: element-wise ops of constants only fold into one constant ------------------------------------------
OPS = {"vadd": np.add, "vsub": np.subtract, "vmul": np.multiply, "vdiv": np.divide, "vmax": np.maximum,
       "vmin": np.minimum}


@pytest.mark.parametrize("op", sorted(OPS))
@pytest.mark.parametrize("dtype", ["float16", "float32"])
def test_binary_of_two_broadcast_constants_stays_vector(chip, op, dtype):
    c1, c2 = 1.1, 2.3                                   # neither is exact in binary: every op rounds
    npdt = np.dtype(dtype).type
    folded = OPS[op](npdt(c1), npdt(c2))                 # numpy rounds per op in the dtype, like the instruction
    for shape in shapes(chip):
        x = tvm.te.placeholder(shape, dtype, name="x")
        data = np.random.default_rng(2).uniform(-4, 4, shape).astype(dtype)
        out = dsl.vadd(x, getattr(dsl, op)(bc(c1, shape, dtype), bc(c2, shape, dtype)))
        result = run([out], [x], [data])
        assert_vector(result)
        if op == "vdiv" and chip == "Ascend310":         # no vdiv there: vrec then vmul, as the tensor path does
            quotient = run_on_tensor(lambda t: dsl.vdiv(t, bc(c2, (1, 16), dtype)), c1, (1, 16), dtype)[0, 0]
            np.testing.assert_allclose(quotient, folded, rtol=2e-3)
            folded_here = quotient
        else:
            folded_here = folded
        assert np.array_equal(result.outputs[0], data + folded_here)
        assert vector_opcodes(result) <= {"vadds", "vadd", "vector_dup"}
    assert result.kernel.block_dim > 1 and result.sched.tiles_per_block > 1


@pytest.mark.parametrize("dtype", ["float16", "float32"])
def test_constant_subgraph_folds_with_per_op_rounding_and_can_be_an_output(chip, dtype):
    npdt = np.dtype(dtype).type
    shape = (3, 37)
    x = tvm.te.placeholder(shape, dtype, name="x")
    a, b, c = bc(0.1, shape, dtype), bc(0.2, shape, dtype), bc(0.3, shape, dtype)
    total = dsl.vmuls(dsl.vsub(dsl.vadd(a, b), c), 1000.0)        # (0.1 + 0.2 - 0.3) * 1000, rounded per op
    both = dsl.vmax(dsl.vmul(x, total), dsl.vadds(total, -5.0))
    data = np.random.default_rng(3).uniform(-4, 4, shape).astype(dtype)
    result = run([total, both], [x], [data])
    assert_vector(result)
    value = (npdt(0.1) + npdt(0.2) - npdt(0.3)) * npdt(1000.0)
    assert np.array_equal(result.outputs[0], np.full(shape, value, dtype))
    assert np.array_equal(result.outputs[1], np.maximum(data * value, value + npdt(-5.0)))


# -- the other emitters with a constant operand ----------------------------------------------------------------
UNARY = {"vabs": np.abs, "vexp": np.exp, "vlog": np.log, "vsqrt": np.sqrt, "vrsqrt": lambda v: 1 / np.sqrt(v),
         "vrec": lambda v: 1 / v, "vrelu": lambda v: np.maximum(v, 0)}


@pytest.mark.parametrize("op", sorted(UNARY))
@pytest.mark.parametrize("dtype", ["float16", "float32"])
def test_unary_of_broadcast_constant(chip, op, dtype):
    value = -1.7 if op in ("vabs", "vrelu") else 1.7
    shape = (3, 37)
    x = tvm.te.placeholder(shape, dtype, name="x")
    data = np.random.default_rng(4).uniform(-4, 4, shape).astype(dtype)
    result = run([dsl.vadd(x, getattr(dsl, op)(bc(value, shape, dtype)))], [x], [data])
    assert_vector(result)
    expected = data.astype(np.float64) + UNARY[op](np.float64(np.dtype(dtype).type(value)))
    np.testing.assert_allclose(result.outputs[0].astype(np.float64), expected, rtol=2e-3, atol=2e-3)


@pytest.mark.parametrize("dtype", ["float16", "float32"])
def test_compare_and_select_with_constant_operands(chip, dtype):
    shape = (3, 37)
    x = tvm.te.placeholder(shape, dtype, name="x")
    data = np.random.default_rng(5).uniform(-4, 4, shape).astype(dtype)
    npdt = np.dtype(dtype).type
    picked = dsl.vsel(dsl.vcmp(x, bc(0.5, shape, dtype), "lt"), bc(1.25, shape, dtype), bc(-2.0, shape, dtype))
    always = dsl.vsel(dsl.vcmp(bc(1.0, shape, dtype), bc(2.0, shape, dtype), "lt"), x, bc(7.0, shape, dtype))
    mixed = dsl.vcmpsel(bc(3.0, shape, dtype), bc(2.0, shape, dtype), "gt", x, bc(9.0, shape, dtype))
    result = run([picked, dsl.vadd(always, mixed)], [x], [data])
    assert_vector(result)
    assert np.array_equal(result.outputs[0], np.where(data < npdt(0.5), npdt(1.25), npdt(-2.0)))
    summed = result.outputs[1]                   # (the 310 compares float16 only: the DSL casts vcmpsel down)
    assert np.array_equal(summed, data.astype(summed.dtype) * 2)


@pytest.mark.parametrize("dtype", ["float16", "float32"])
def test_reduce_of_broadcast_constant(chip, dtype):
    shape = (24, 200)
    sums = dsl.sum(bc(0.5, shape, dtype), axis=1)
    maxes = dsl.reduce_max(bc(-1.25, shape, dtype), axis=0)
    for out, expected in ((sums, np.full(shape[0], 100.0)), (maxes, np.full(shape[1], -1.25))):
        result = run([out], [], [])
        assert_vector(result)
        assert np.array_equal(result.outputs[0], expected.astype(dtype))


def test_logic_multiply_add_and_axpy_with_constant_operands(chip):
    shape = (3, 37)
    x = tvm.te.placeholder(shape, "float16", name="x")
    data = np.random.default_rng(6).uniform(-4, 4, shape).astype("float16")
    true = dsl.vcmp(bc(0.0, shape, "float16"), bc(1.0, shape, "float16"), "lt")
    both = dsl.vlogic(dsl.vcmp(x, bc(0.0, shape, "float16"), "lt"), true, "logic_and")
    fused = dsl.vmla(bc(1.5, shape, "float16"), bc(2.0, shape, "float16"), x)
    axpy = dsl.vaxpy(bc(1.5, shape, "float16"), x, 2.0)
    result = run([both, fused, axpy], [x], [data])
    assert_vector(result)
    assert np.array_equal(result.outputs[0], data < 0)
    assert np.array_equal(result.outputs[1], data + np.float16(3.0))
    assert np.array_equal(result.outputs[2], data + np.float16(3.0))


# -- no instruction for the constant's op: an honest scalar fallback, never an AttributeError -----------------------
def test_constant_op_the_chip_lacks_falls_back_honestly():
    set_chip("Ascend310")                         # vexp has no float32 form there
    try:
        shape = (3, 37)
        with pytest.warns(ScalarPipeWarning, match="vexp does not support float32"):
            result = run([raw_unary("exp", raw_const(0.5, shape, "float32"))], [], [])
    finally:
        set_chip(None)
    assert result.sched.classification == "fallback"
    assert "vexp" in result.sched.fallback_reason
    np.testing.assert_allclose(result.outputs[0], np.full(shape, np.exp(np.float32(0.5))), rtol=1e-6)


def test_a_constant_where_an_instruction_reads_a_tensor_is_an_unsupported_pattern():
    with pytest.raises(UnsupportedPattern, match="constant"):
        Loc(ConstArg(1.5), 0, "float16").ref()


def test_folds_follow_the_chip_current_at_lowering(restore_chip):
    """auto_schedule on one chip, lower on another: the constants fold with the lowering chip's instructions
    (7/3 in float16: Ascend910's vdiv rounds once; Ascend310 has no vdiv, vrec then vmul rounds twice)."""
    from npusim.sim import Device
    from te_compat.schedule import auto_schedule
    shape, dtype = (4, 16), "float16"

    def graph():
        x = tvm.te.placeholder(shape, dtype, name="x")
        return x, dsl.vadd(x, dsl.vdiv(bc(7.0, shape, dtype), bc(3.0, shape, dtype)))

    def result(kernel):
        dev = Device()
        x_ptr, out_ptr = dev.to_device(np.zeros(shape, dtype)), dev.malloc(int(np.prod(shape)) * 2)
        dev.run(kernel, [x_ptr, out_ptr])
        return dev.from_device(out_ptr, shape, dtype)

    outputs = {}
    for chip_name in ("Ascend910", "Ascend310"):
        set_chip(chip_name)
        x, out = graph()
        outputs[chip_name] = result(auto_schedule([out]).lower([x, out], "fresh"))
    assert not np.array_equal(outputs["Ascend910"], outputs["Ascend310"])
    set_chip("Ascend910")
    x, out = graph()
    sched = auto_schedule([out])
    set_chip("Ascend310")
    from npusim.sim import current_runtime
    switched = sched.lower([x, out], "switched", current_runtime())   # what cce_build_code does after a switch
    np.testing.assert_array_equal(result(switched), outputs["Ascend310"])


def test_a_body_tvm_folded_to_a_constant_stays_vector(restore_chip):
    """TVM folds ``x * 0.0`` to ``0.0`` while the DSL builds the compute (real TBE is built on TVM and folds it
    too): the node has no input left and is a constant, not a fallback."""
    set_chip("Ascend910")
    x = tvm.te.placeholder((4, 16), "float32", name="x")
    out = dsl.vadds(dsl.vmuls(x, 0.0), 2.0)
    result = run([out], [x], [np.arange(64, dtype=np.float32).reshape(4, 16)])
    assert_vector(result)
    assert np.array_equal(result.outputs[0], np.full((4, 16), 2.0, np.float32))
