"""Every hardware check of the simulator raises its own typed error naming the kernel, the block, the instruction
index and the instruction with its operands -- both when the operands are immediates (caught when the kernel is
built, before any block runs) and when they are only known at run time (caught in the block that trips them)."""
import numpy as np
import pytest

from npusim.errors import (AlignmentError, CapacityError, MaskError, OutOfBoundsError, RepeatError, SimulatorError,
                           UnsupportedDtypeError)
from npusim.errors import sim as sim_errors
from npusim.sim import Device, KernelBuilder, set_chip

BLOCKS = 4
BAD_BLOCK = 2


def _kernel(trip, dtype="float16"):
    """A kernel whose instruction #2 is ``trip(kb, ub, gm, v)``; ``v`` is 1 in block BAD_BLOCK and 0 elsewhere."""
    kb = KernelBuilder("site_probe", block_dim=BLOCKS)
    gm = kb.tensor(dtype, (1024,), "GM", "gm")
    ub = kb.tensor(dtype, (1024,), "UB", "ub")
    v = kb.scalar("int32", "v", init_value=0)                                  # instruction #0
    with kb.if_scope(kb.block_idx == BAD_BLOCK):
        v.set_as(1)                                                           # instruction #1
    trip(kb, ub, gm, v)                                                       # instruction #2
    return kb.build()


RUNTIME_TRIPS = {
    "ub_out_of_bounds": (OutOfBoundsError, "dst tensor ub overflow",
                         lambda kb, ub, gm, v: kb.vadds(128, ub[v * 1024], ub, 1.0, 1, 1, 1, 8, 8)),
    "gm_out_of_bounds": (OutOfBoundsError, "src tensor gm overflow",
                         lambda kb, ub, gm, v: kb.data_move(ub, gm[v * 16], 0, 1, 64, 0, 0)),
    "unaligned": (AlignmentError, "not 32 Byte align",
                  lambda kb, ub, gm, v: kb.vadds(128, ub[v * 8], ub[512], 1.0, 1, 1, 1, 8, 8)),
    "repeat": (RepeatError, "repeat_times should be in the range",
               lambda kb, ub, gm, v: kb.vadds(128, ub, ub, 1.0, 1 + v * 255, 1, 1, 8, 8)),
    "mask_count": (MaskError, "mask should be in the range of \\[1, 128\\]",
                   lambda kb, ub, gm, v: kb.vadds(128 + v, ub, ub, 1.0, 1, 1, 1, 8, 8)),
    "mask_pair": (MaskError, "mask \\[0, 0\\] selects no lane",
                  lambda kb, ub, gm, v: kb.vadds([0, 1 - v], ub, ub, 1.0, 1, 1, 1, 8, 8)),
}


@pytest.mark.parametrize("case", sorted(RUNTIME_TRIPS))
def test_run_time_check_names_kernel_block_instruction_and_operands(case):
    error_class, text, trip = RUNTIME_TRIPS[case]
    kernel = _kernel(trip)
    dev = Device("Ascend910")
    with pytest.raises(error_class, match=text) as info:
        dev.run(kernel, [dev.malloc(2048)])
    err = info.value
    assert (err.kernel, err.block, err.instr_index) == ("site_probe", BAD_BLOCK, 2)
    opcode = "data_move" if "gm" in case else "vadds"
    assert err.operands.startswith(f"{opcode}(") and "ub" in err.operands
    message = str(err)
    assert f"kernel 'site_probe', block {BAD_BLOCK}, instruction #2 `{opcode}(" in message


BUILD_TRIPS = {
    "ub_out_of_bounds": (OutOfBoundsError, lambda kb, ub, gm, v: kb.vadds(128, ub[1024], ub, 1.0, 1, 1, 1, 8, 8)),
    "unaligned": (AlignmentError, lambda kb, ub, gm, v: kb.vadds(128, ub[8], ub[512], 1.0, 1, 1, 1, 8, 8)),
    "repeat": (RepeatError, lambda kb, ub, gm, v: kb.vadds(128, ub, ub, 1.0, 256, 1, 1, 8, 8)),
    "mask_count": (MaskError, lambda kb, ub, gm, v: kb.vadds(129, ub, ub, 1.0, 1, 1, 1, 8, 8)),
    "mask_pair_32bit": (MaskError, lambda kb, ub, gm, v: kb.vadds([1, 0], ub, ub, 1.0, 1, 1, 1, 8, 8), "float32"),
    "dtype": (UnsupportedDtypeError, lambda kb, ub, gm, v: kb.vrelu(64, ub, ub, 1, 1, 1, 8, 8), "float32"),
}


@pytest.mark.parametrize("case", sorted(BUILD_TRIPS))
def test_build_time_check_names_kernel_instruction_and_operands(case):
    error_class, trip, *dtype = BUILD_TRIPS[case]
    with pytest.raises(error_class) as info:
        _kernel(trip, *dtype)
    err = info.value
    assert (err.kernel, err.block, err.instr_index) == ("site_probe", None, 2)    # no block has run yet
    assert err.operands.split("(")[0] in ("vadds", "vrelu") and "dst=ub" in err.operands
    assert str(err).startswith("kernel 'site_probe', instruction #2 `")


def test_capacity_names_kernel_scope_and_buffer():
    kb = KernelBuilder("too_big")
    kb.tensor("float16", (1024,), "UB", "small")
    kb.tensor("float32", (65536,), "UB", "large")          # 2 KiB + 256 KiB > 256 KiB
    with pytest.raises(CapacityError, match="buffer large ends at byte 264192 of UB") as info:
        kb.build()
    assert info.value.kernel == "too_big" and "kernel 'too_big'" in str(info.value)
    for scope, elems in (("L1", 1024 * 1024 // 2 + 16), ("L0A", 32768 + 16), ("L0B", 32768 + 16),
                         ("L0C", 131072 + 16)):
        kb = KernelBuilder(f"too_big_{scope}")
        kb.tensor("float16", (elems,), scope, "buf")
        with pytest.raises(CapacityError, match=f"Ascend910's {scope} holds"):
            kb.build()


def test_dtype_support_follows_the_chip_in_use():
    def vexp32(kb, ub, gm, v):
        kb.vexp(64, ub, ub, 1, 1, 1, 8, 8)
    _kernel(vexp32, "float32")                             # Ascend910 (cloud): fp32 vexp exists
    set_chip("Ascend310")
    try:
        with pytest.raises(UnsupportedDtypeError, match="vexp does not support float32 on Ascend310") as info:
            _kernel(vexp32, "float32")
    finally:
        set_chip(None)
    assert info.value.instr_index == 2 and info.value.operands.startswith("vexp(")


def test_one_hierarchy_in_one_module():
    classes = [obj for obj in vars(sim_errors).values() if isinstance(obj, type) and issubclass(obj, Exception)]
    raised = {OutOfBoundsError, AlignmentError, RepeatError, MaskError, UnsupportedDtypeError, CapacityError}
    assert raised <= set(classes)
    assert all(issubclass(cls, SimulatorError) and issubclass(cls, RuntimeError) for cls in raised)
    assert all(cls.__module__ == "npusim.errors.sim" for cls in raised)


def test_host_memcpy_size_is_checked():
    from npusim.errors import DeviceMemoryError
    dev = Device("Ascend910")
    ptr = dev.malloc(64)
    with pytest.raises(DeviceMemoryError, match="host source array holds 16 bytes"):
        dev.memcpy(ptr, np.zeros(4, np.float32), 32)
    with pytest.raises(DeviceMemoryError, match="host destination array holds 8 bytes"):
        dev.memcpy(np.zeros(2, np.float32), ptr, 64)
