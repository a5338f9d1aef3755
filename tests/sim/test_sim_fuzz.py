"""Hypothesis fuzz: random instruction streams (valid or not) only ever raise typed SimulatorErrors."""
import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from npusim.errors import SimulatorError
from npusim.sim import Device, KernelBuilder, get_chip
from npusim.sim.isa import ISA

DTYPES = ["float16", "float32", "int32", "int16", "uint8"]
VECTOR_OPS = sorted(op for op, spec in ISA.items() if spec.family.startswith("vector"))
PIPES = ["S", "V", "M", "MTE1", "MTE2", "MTE3", "FIX", "ALL", "bogus"]
ROUND_MODES = ["", "round", "floor", "ceil", "away-zero", "to-zero", "odd", "weird"]

def mostly(valid, invalid):
    """Valid values most of the time, so that streams get past their first instruction; invalid ones too."""
    return st.integers(0, 15).flatmap(lambda k: invalid if k == 0 else valid)


REG = ("REG",)     # the kernel's int32 register: a run-time operand (checked when it is read)
ints = mostly(st.integers(1, 8), st.one_of(st.integers(-3, 300), st.sampled_from([0, 255, 256, 4095, 65536]),
                                           st.just(REG)))
masks = mostly(st.one_of(st.integers(1, 64), st.tuples(st.just(0), st.integers(1, 2**64 - 1))),
               st.one_of(st.integers(-2, 140), st.tuples(st.integers(0, 2**64), st.integers(0, 2**64))))
offsets = mostly(st.integers(0, 32).map(lambda b: b * 16), st.one_of(st.integers(-20, 5000), st.just(REG)))
tensors = st.tuples(mostly(st.sampled_from(["u0", "u1"]), st.sampled_from(["g0", "l1", "l0a", "l0c"])), offsets,
                    mostly(st.none(), st.sampled_from(DTYPES)))


@st.composite
def vector_instr(draw):
    opcode = draw(st.sampled_from(VECTOR_OPS))
    args = {}
    for operand in ISA[opcode].operands:
        if operand.kind in ("tensor", "tensor_or_scalar"):
            args[operand.name] = ("T", draw(tensors))
        elif operand.kind == "sel":
            args[operand.name] = draw(st.one_of(st.just("CMPMASK"), tensors.map(lambda t: ("T", t))))
        elif operand.kind == "mask":
            args[operand.name] = draw(masks)
        elif operand.name == "deqscale":
            args[operand.name] = draw(mostly(st.none(), st.floats(-4, 4)))
        elif operand.kind == "scalar":
            args[operand.name] = draw(st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.integers(-9, 9)))
        elif operand.kind == "choice":
            valid = list(operand.choices) if operand.name != "round_mode" else ROUND_MODES[:-1]
            args[operand.name] = draw(mostly(st.sampled_from(valid), st.sampled_from(["weird", "MTE9"])))
        elif operand.name == "mode":
            args[operand.name] = draw(mostly(st.just(0), st.integers(-1, 3)))
        else:
            args[operand.name] = draw(ints)
    return opcode, args


@st.composite
def move_instr(draw):
    gm_side = ("T", ("g0", draw(offsets), None))
    ub_side = ("T", (draw(st.sampled_from(["u0", "u1"])), draw(offsets), None))
    dst, src = draw(mostly(st.sampled_from([(ub_side, gm_side), (gm_side, ub_side)]),
                           st.tuples(tensors.map(lambda t: ("T", t)), tensors.map(lambda t: ("T", t)))))
    return "data_move", {"dst": dst, "src": src, "sid": draw(ints),
                         "nburst": draw(ints), "burst": draw(ints), "src_stride": draw(ints),
                         "dst_stride": draw(ints)}


@st.composite
def sync_instr(draw):
    opcode = draw(st.sampled_from(["set_flag", "wait_flag", "pipe_barrier"]))
    if opcode == "pipe_barrier":
        return opcode, {"pipe": draw(st.sampled_from(PIPES))}
    pair = draw(mostly(st.sampled_from([("MTE2", "V"), ("V", "MTE3"), ("MTE3", "MTE2"), ("V", "S"), ("S", "V")]),
                       st.tuples(st.sampled_from(PIPES), st.sampled_from(PIPES))))
    return opcode, {"src_pipe": pair[0], "dst_pipe": pair[1], "event_id": draw(mostly(st.integers(0, 3),
                                                                                     st.integers(-1, 9)))}


@st.composite
def scalar_instr(draw):
    opcode = draw(st.sampled_from(["sset", "sload", "sstore"]))
    if opcode == "sset":
        return opcode, {"dst": "reg", "value": draw(mostly(st.integers(0, 16), st.integers(-2**40, 2**40)))}
    if opcode == "sload":
        return opcode, {"dst": "reg", "src": ("T", draw(tensors))}
    return opcode, {"dst": ("T", draw(tensors)), "value": draw(st.one_of(st.just(REG), st.integers(-9, 9)))}


@st.composite
def cube_instr(draw):
    """mmad on the L0 buffers (sometimes misplaced or mistyped), with random (m, k, n)."""
    dims = mostly(st.integers(0, 64), st.integers(-2, 5000))
    dst = draw(mostly(st.just(("l0c", 0, None)), st.tuples(st.sampled_from(["l0c", "u0"]), offsets,
                                                             st.sampled_from(DTYPES))))
    src_fm = draw(mostly(st.just(("l0a", 0, None)), st.tuples(st.just("l0a"), offsets, st.sampled_from(DTYPES))))
    src_filter = draw(mostly(st.just(("l0b", 0, None)), st.tuples(st.just("l0b"), offsets, st.none())))
    return "mmad", {"dst_fm": ("T", dst), "src_fm": ("T", src_fm), "src_filter": ("T", src_filter),
                    "matrix_m": draw(dims), "matrix_k": draw(dims), "matrix_n": draw(dims),
                    "is_bias": draw(st.booleans())}


instructions = st.lists(st.one_of(vector_instr(), vector_instr(), move_instr(), sync_instr(), scalar_instr(),
                                  cube_instr()), min_size=1, max_size=6)


def _build(stream, chip_name):
    kb = KernelBuilder("fuzz", block_dim=2)
    handles = {"g0": kb.tensor("float16", (4096,), "GM", "g0"), "u0": kb.tensor("float16", (4096,), "UB", "u0"),
               "u1": kb.tensor("float16", (4096,), "UB", "u1"), "l1": kb.tensor("float16", (2048,), "L1", "l1"),
               "l0a": kb.tensor("float16", (4096,), "L0A", "l0a"), "l0b": kb.tensor("float16", (4096,), "L0B", "l0b"),
               "l0c": kb.tensor("float32", (4096,), "L0C", "l0c")}
    reg = kb.scalar("int32", "reg")
    for opcode, args in stream:
        resolved = {}
        for name, value in args.items():
            if isinstance(value, tuple) and value and value[0] == "T":
                buf, offset, dtype = value[1]
                handle = handles[buf] if dtype is None else handles[buf].reinterpret_cast_to(dtype)
                resolved[name] = handle[reg * 16 if offset == REG else offset]
            elif value == REG:
                resolved[name] = reg
            else:
                resolved[name] = value
        kb.emit(opcode, **resolved)
    return kb.build(check=False)


@settings(max_examples=200, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(stream=instructions, chip_name=st.sampled_from(["Ascend910", "Ascend910B1", "Ascend310"]))
def test_random_instruction_streams_raise_only_simulator_errors(stream, chip_name):
    try:
        kernel = _build(stream, chip_name)
        device = Device(get_chip(chip_name))
        ptr = device.to_device(np.zeros(4096, np.float16))
        record = device.run(kernel, [ptr])
        report = record.cost
        assert report.total_cycles >= 0
    except SimulatorError as exc:
        assert str(exc)
