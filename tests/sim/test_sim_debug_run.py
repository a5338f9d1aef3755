"""Device.debug_run: a step hook before every instruction of every block (block after block), the block's memory
and registers visible to it, an exception from the hook ending the run, results as a normal launch gives."""
from __future__ import annotations

import numpy as np
import pytest

from npusim.sim import Device, KernelBuilder, get_chip


def _kernel():
    kb = KernelBuilder("dbg", chip=get_chip("Ascend910"))
    x = kb.tensor("float32", (128,), "GM", "x")
    ub = kb.tensor("float32", (64,), "UB", "ub")
    r = kb.scalar("float32", "r")
    kb.data_move(ub, x[kb.block_idx * 64], 0, 1, 8, 0, 0)
    r.set_as(ub[1])
    kb.vmuls(64, ub, ub, 3.0, 1, 1, 1, 8, 8)
    kb.data_move(x[kb.block_idx * 64], ub, 0, 1, 8, 0, 0)
    return kb.build(inputs=[x], outputs=[], check=False)


def test_hook_runs_before_every_instruction_of_every_block():
    device = Device(get_chip("Ascend910"))
    data = np.arange(128, dtype=np.float32)
    ptr = device.to_device(data)
    seen = []

    def hook_for(compiled):
        block_slot, reg_slot = compiled.slots.slot("block_idx"), compiled.slots.slot("r")

        def hook(ctx, index):
            ub = ctx.core_memory.view("UB", "float32")[:64].copy()
            seen.append((ctx.env[block_slot], index, ctx.env[reg_slot], ub))
        return hook
    device.debug_run(_kernel(), [ptr], hook_for, block_dim=2)
    np.testing.assert_array_equal(device.from_device(ptr, (128,), np.float32), data * 3)
    assert [(b, i) for b, i, _, _ in seen] == [(b, i) for b in (0, 1) for i in range(4)]
    assert seen[2][2] == 1.0 and seen[6][2] == 65.0               # the register after the sload, per block
    np.testing.assert_array_equal(seen[2][3], data[:64])          # before vmuls: the loaded tile
    np.testing.assert_array_equal(seen[7][3], data[64:] * 3)      # before the store of block 1


def test_an_exception_from_the_hook_ends_the_run():
    device = Device(get_chip("Ascend910"))
    ptr = device.to_device(np.zeros(128, np.float32))

    class Stop(Exception):
        pass

    def hook_for(compiled):
        def hook(ctx, index):
            if index == 2:
                raise Stop()
        return hook
    with pytest.raises(Stop):
        device.debug_run(_kernel(), [ptr], hook_for, block_dim=2)
    device.run(_kernel(), [ptr], block_dim=2)     # the device still works afterwards
