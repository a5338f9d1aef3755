"""What a lockstep batch that gives up puts back: the GM tensors the kernel may read (directly or through a
binding sharing their bytes) and, in a kernel that accumulates atomically, every written one; a tensor the kernel
only stores into is written again by the block-by-block run, so the launch ends with the reference's bytes."""
from __future__ import annotations

import numpy as np
import pytest

from npusim.sim import Device, KernelBuilder, get_chip
from npusim.sim import executor
from npusim.sim.lockstep.runner import restore_set


def test_restore_set_rules():
    ranges = {0: (0, 100), 1: (100, 200), 2: (200, 300), 3: (50, 150)}
    assert restore_set(ranges, frozenset({1, 2}), frozenset({0}), False) == frozenset()
    assert restore_set(ranges, frozenset({1, 2}), frozenset({0, 2}), False) == frozenset({2})
    assert restore_set(ranges, frozenset({1}), frozenset({3}), False) == frozenset({1})   # shares bytes with a read
    assert restore_set(ranges, frozenset({1, 2}), frozenset(), True) == frozenset({1, 2})


def _kernel():
    """Each block stores 64 floats into its own slice of y (y is only stored into) and adds its 64 floats into
    w[block * 32 ...], reading w first: neighbours meet in w, block b reading what block b-1 writes, so the batch
    gives up and the blocks run one after another."""
    kb = KernelBuilder("overlap", chip=get_chip("Ascend910"))
    x = kb.tensor("float32", (64 * 4,), "GM", "x")
    y = kb.tensor("float32", (64 * 4,), "GM", "y")
    w = kb.tensor("float32", (32 * 5,), "GM", "w")
    ub = kb.tensor("float32", (64,), "UB", "ub")
    old = kb.tensor("float32", (64,), "UB", "old")
    kb.data_move(ub, x[kb.block_idx * 64], 0, 1, 8, 0, 0)
    kb.data_move(y[kb.block_idx * 64], ub, 0, 1, 8, 0, 0)
    kb.data_move(old, w[kb.block_idx * 32], 0, 1, 8, 0, 0)
    kb.vadd(64, ub, ub, old, 1, 1, 1, 1, 8, 8, 8)
    kb.data_move(w[kb.block_idx * 32], ub, 0, 1, 8, 0, 0)
    return kb.build(inputs=[x], outputs=[y, w], check=False)


def test_a_batch_that_gives_up_ends_with_the_reference_bytes(monkeypatch):
    x = np.random.default_rng(7).standard_normal(256).astype(np.float32)
    y0 = np.random.default_rng(8).standard_normal(256).astype(np.float32)
    w0 = np.random.default_rng(9).standard_normal(160).astype(np.float32)
    gave_up = []
    original = executor._lockstep

    def watched(*args, **kwargs):
        blocks = original(*args, **kwargs)
        gave_up.append(blocks is None)
        return blocks
    monkeypatch.setattr(executor, "_lockstep", watched)
    results = {}
    for mode in ("auto", "reference"):
        monkeypatch.setattr(executor, "DEFAULT_MODE", mode)
        device = Device(get_chip("Ascend910"))
        ptrs = [device.to_device(a) for a in (x, y0, w0)]
        device.run(_kernel(), ptrs, block_dim=4)
        results[mode] = [device.from_device(p, a.shape, np.float32).tobytes() for p, a in zip(ptrs[1:], (y0, w0))]
    assert gave_up == [True]
    assert results["auto"] == results["reference"]


def _loaded_guard(kind: str):
    """Block b loads w[8 b] into a register that decides whether (``guard``) or where (``address``) it stores into
    y, then writes w[8 b + 8], which block b+1 loads: the batch gives up, its blocks having read stale data, and
    an output-only y must still end as the block-by-block run leaves it."""
    kb = KernelBuilder(f"loaded_{kind}", chip=get_chip("Ascend910"))
    y = kb.tensor("float32", (64,), "GM", "y")
    w = kb.tensor("int32", (64,), "GM", "w")
    s = kb.scalar("int32", "s")
    s.set_as(w[kb.block_idx * 8])
    if kind == "guard":
        with kb.if_scope(s == 0):
            y[kb.block_idx * 8].set_as(5.0)
        w[kb.block_idx * 8 + 8].set_as(1)
    else:
        y[s].set_as(5.0)
        w[kb.block_idx * 8 + 8].set_as(kb.block_idx * 8 + 40)
    return kb.build(inputs=[w], outputs=[y], check=False)


@pytest.mark.parametrize("kind", ["guard", "address"])
def test_stores_decided_by_loaded_data_are_undone(kind, monkeypatch):
    w0 = np.zeros(64, np.int32)
    w0[8] = 16 if kind == "address" else 0        # what block 1 reads if it runs before block 0's store
    results = {}
    for mode in ("auto", "reference"):
        monkeypatch.setattr(executor, "DEFAULT_MODE", mode)
        device = Device(get_chip("Ascend910"))
        pw, py = device.to_device(w0), device.to_device(np.full(64, -7, np.float32))
        device.run(_loaded_guard(kind), [pw, py], block_dim=2)
        results[mode] = device.from_device(py, (64,), np.float32).tobytes()
    assert results["auto"] == results["reference"]
