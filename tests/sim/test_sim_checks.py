"""Every hardware check raises its typed error, naming kernel, block, instruction and operands."""
import numpy as np
import pytest

from npusim.errors import (AlignmentError, CapacityError, InvalidOperandError, MaskError, OutOfBoundsError,
                           OverlapError, RepeatError, SimulatorError, SyncError, UnsupportedDtypeError)
from npusim.sim import Device, KernelBuilder, set_chip


def vadd_kernel(mask=128, repeat=1, dst_off=0, src_off=0, dtype="float16", ub_elems=1024, name="chk",
                dst_rep=8, rep_var=False):
    kb = KernelBuilder(name)
    gm = kb.tensor(dtype, (ub_elems,), "GM", "gm")
    ub = kb.tensor(dtype, (ub_elems,), "UB", "ub")
    ub2 = kb.tensor(dtype, (ub_elems,), "UB", "ub2")
    repeat_expr = kb.scalar("int32", "r", init_value=repeat) if rep_var else repeat
    kb.vadd(mask, ub[dst_off], ub2[src_off], ub2[src_off], repeat_expr, 1, 1, 1, dst_rep, 8, 8)
    kb.data_move(gm, ub, 0, 1, 32, 0, 0)
    return kb


def test_errors_are_runtime_errors_in_one_hierarchy():
    assert issubclass(OutOfBoundsError, SimulatorError) and issubclass(SimulatorError, RuntimeError)


@pytest.mark.parametrize("repeat", [0, 256, -1])
def test_repeat_out_of_range_at_build(repeat):
    with pytest.raises(RepeatError, match=r"repeat_times should be in the range of \[1, 255\]") as info:
        vadd_kernel(repeat=repeat).build()
    assert info.value.kernel == "chk" and info.value.instr_index == 0 and "vadd(" in str(info.value)


def test_repeat_from_register_checked_at_run_time_with_block():
    kernel = vadd_kernel(repeat=300, rep_var=True).build()
    dev = Device("Ascend910")
    with pytest.raises(RepeatError) as info:
        dev.run(kernel, [dev.malloc(2048)], block_dim=2)
    assert info.value.block == 0 and "block 0" in str(info.value) and "instruction #1" in str(info.value)


@pytest.mark.parametrize("dtype,mask", [("float16", 129), ("float16", 0), ("float32", 65), ("float32", (1, 0)),
                                        ("float16", (0, 0)), ("float16", (1 << 64, 0))])
def test_mask_out_of_range(dtype, mask):
    with pytest.raises(MaskError):
        vadd_kernel(mask=mask, dtype=dtype).build()


def test_unaligned_operand():
    with pytest.raises(AlignmentError, match="not 32 Byte align"):
        vadd_kernel(dst_off=8).build()


def test_vector_access_out_of_buffer():
    with pytest.raises(OutOfBoundsError, match="dst tensor ub overflow"):
        vadd_kernel(repeat=9).build()        # 9 x 128 elements into a 1024-element buffer


def test_gm_access_past_allocation():
    kb = KernelBuilder("gm_oob")
    gm = kb.tensor("float16", (256,), "GM", "gm")
    ub = kb.tensor("float16", (512,), "UB", "ub")
    with kb.for_range(0, 3) as i:
        kb.data_move(ub, gm[i * 128], 0, 1, 8, 0, 0)
    kernel = kb.build()
    dev = Device("Ascend910")
    with pytest.raises(OutOfBoundsError, match="src tensor gm overflow") as info:
        dev.run(kernel, [dev.malloc(512)])
    assert info.value.block == 0


def test_capacity_of_ub():
    kb = KernelBuilder("big")
    kb.tensor("float16", (200 * 1024,), "UB", "huge")
    with pytest.raises(CapacityError, match="UB holds 262144 bytes"):
        kb.build()
    set_chip("Ascend910B1")
    try:
        kb2 = KernelBuilder("fits910")
        kb2.tensor("float16", (128 * 1024,), "UB", "full")
        kb2.build(check=False)
        kb3 = KernelBuilder("big910b")
        kb3.tensor("float16", (128 * 1024,), "UB", "full")
        with pytest.raises(CapacityError, match="Ascend910B1's UB holds 196608"):
            kb3.build()
    finally:
        set_chip(None)


def test_unsupported_dtype_on_chip():
    kb = KernelBuilder("vexp32")
    ub = kb.tensor("float32", (64,), "UB", "ub")
    kb.vexp(64, ub, ub, 1, 1, 1, 8, 8)
    set_chip("Ascend310")
    try:
        with pytest.raises(UnsupportedDtypeError, match="vexp does not support float32 on Ascend310"):
            kb.build()
    finally:
        set_chip(None)
    kb.build()  # fine on Ascend910
    kb2 = KernelBuilder("vadd8")
    ub8 = kb2.tensor("int8", (256,), "UB", "ub8")
    kb2.vadd(128, ub8, ub8, ub8, 1, 1, 1, 1, 8, 8, 8)
    with pytest.raises(UnsupportedDtypeError):
        kb2.build()


def test_partial_overlap_rejected_but_exact_inplace_allowed():
    kb = KernelBuilder("overlap")
    ub = kb.tensor("float16", (1024,), "UB", "ub")
    kb.vadds(128, ub[16], ub[0], 1.0, 1, 1, 1, 8, 8)
    with pytest.raises(OverlapError, match="100% same"):
        kb.build()
    kb = KernelBuilder("dependency")
    ub = kb.tensor("float16", (1024,), "UB", "ub")
    kb.vadds(128, ub[128], ub[0], 1.0, 4, 1, 1, 8, 8)   # repeat N writes what repeat N+1 reads
    with pytest.raises(OverlapError, match="earlier repeat wrote"):
        kb.build()
    kb = KernelBuilder("inplace")
    ub = kb.tensor("float16", (1024,), "UB", "ub")
    kb.vadds(128, ub, ub, 1.0, 8, 1, 1, 8, 8)
    kb.build()


def test_event_id_and_pipe_checks():
    kb = KernelBuilder("flags")
    kb.set_flag("MTE2", "V", 4)
    with pytest.raises(InvalidOperandError, match=r"event_id should be in the range of \[0, 3\]"):
        kb.build()
    kb = KernelBuilder("fixpipe")
    kb.set_flag("FIX", "V", 0)
    with pytest.raises(InvalidOperandError, match="not a pipe of Ascend910"):
        kb.build()


def test_wait_without_set_hangs():
    kb = KernelBuilder("hang")
    kb.wait_flag("MTE2", "V", 0)
    kernel = kb.build()
    with pytest.raises(SyncError, match="would hang") as info:
        Device("Ascend910").run(kernel, [])
    assert info.value.block == 0


def test_wait_on_scalar_pipe_before_its_set_deadlocks_in_cost_model():
    kb = KernelBuilder("s_wait")
    kb.wait_flag("V", "S", 1)      # S blocks here, so the set below is never issued
    kb.set_flag("V", "S", 1)
    record = Device("Ascend910").run(kb.build(), [])
    with pytest.raises(SyncError, match="waits forever"):
        record.cost


def test_uninitialised_register_and_unknown_operands():
    kb = KernelBuilder("uninit")
    r = kb.scalar("int32", "r")
    ub = kb.tensor("int32", (8,), "UB", "ub")
    kb.sstore(ub[0], r + 1)
    kernel = kb.build()
    with pytest.raises(InvalidOperandError, match="uninitialized Scalar 'r'"):
        Device("Ascend910").run(kernel, [])
    with pytest.raises(InvalidOperandError, match="no operand 'bogus'"):
        KernelBuilder("x").vadd(128, ub, ub, ub, 1, bogus=3)
    with pytest.raises(InvalidOperandError, match="missing operand"):
        KernelBuilder("y").emit("vadd", 128, ub, ub)


def test_tensor_in_wrong_scope():
    kb = KernelBuilder("scope")
    l1 = kb.tensor("float16", (256,), "L1", "l1")
    kb.vadds(128, l1, l1, 1.0, 1, 1, 1, 8, 8)
    with pytest.raises(InvalidOperandError, match="must be in UB"):
        kb.build()


def test_kernel_arguments_checked():
    kb = vadd_kernel()
    kernel = kb.build()
    dev = Device("Ascend910")
    with pytest.raises(InvalidOperandError, match="takes 1 argument"):
        dev.run(kernel, [])
    small = dev.malloc(100)
    with pytest.raises(SimulatorError, match="declares 2048 bytes"):
        dev.run(kernel, [small])
    assert np.all(dev.from_device(small, (50,), np.float16) == 0)


def test_reduction_reading_its_own_earlier_result_is_rejected():
    kb = KernelBuilder("reduce_dep")
    ub = kb.tensor("float16", (1024,), "UB", "ub")
    kb.vcadd(128, ub[128], ub, 2, 1, 1, 8)     # repeat 0 writes ub[128], which repeat 1 sums
    kernel = kb.build()
    with pytest.raises(OverlapError, match="earlier repeat wrote"):
        Device("Ascend910").run(kernel, [])
    kb = KernelBuilder("reduce_inplace")
    ub = kb.tensor("float16", (1024,), "UB", "ub")
    kb.vcadd(128, ub, ub, 4, 1, 1, 8)          # in-place reduction over earlier data: fine
    Device("Ascend910").run(kb.build(), [])
