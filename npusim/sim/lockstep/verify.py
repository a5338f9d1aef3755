"""Checking the lockstep executor against the block-by-block one on a real launch (executor mode "verify").

The launch runs in lockstep first (mode "lockstep"), its GM bytes are kept, GM is put back, and the launch runs
block by block (mode "reference").  Both must agree: the same GM bytes and the same trace records per block.  When
the block-by-block run raises, its error is the result (lockstep gives up on any error, so it raised too).  A
lockstep run that gave up where the block-by-block one succeeded is allowed: it is the fallback (use mode
"lockstep" to require the fast path).
"""
from __future__ import annotations

import numpy as np


def run_both(run, compiled, gm_args: dict, scalar_args: dict, block_dim: int, fill_byte: int, arenas):
    """Run in both modes and compare; returns the block-by-block trace (AssertionError on a mismatch)."""
    before = {i: b.data.copy() for i, b in gm_args.items()}
    try:
        fast = run(compiled, gm_args, scalar_args, block_dim, fill_byte, None, arenas, mode="lockstep")
    except Exception:  # noqa: BLE001  (giving up is allowed: the reference run decides)
        fast = None
    fast_bytes = {i: b.data.copy() for i, b in gm_args.items()}
    for i, b in gm_args.items():
        b.data[...] = before[i]
    reference = run(compiled, gm_args, scalar_args, block_dim, fill_byte, None, arenas, mode="reference")
    if fast is None:
        return reference
    for i, b in gm_args.items():
        if not np.array_equal(fast_bytes[i], b.data):
            where = np.flatnonzero(fast_bytes[i] != b.data)
            raise AssertionError(f"kernel {compiled.kernel.name}: lockstep GM argument {i} differs from the "
                                 f"block-by-block run at {where.size} bytes (first at byte {where[0]})")
    _compare_traces(compiled.kernel.name, fast, reference)
    return reference


def _compare_traces(name: str, fast, reference) -> None:
    if len(fast.blocks) != len(reference.blocks):
        raise AssertionError(f"kernel {name}: lockstep traced {len(fast.blocks)} blocks, block by block "
                             f"{len(reference.blocks)}")
    for a, b in zip(fast.blocks, reference.blocks):
        if (a.block, a.core) != (b.block, b.core) or a.records != b.records:
            first = next((i for i, (x, y) in enumerate(zip(a.records, b.records)) if x != y),
                         min(len(a.records), len(b.records)))
            raise AssertionError(f"kernel {name}: block {b.block}'s lockstep trace differs from the block-by-block "
                                 f"one at record {first} ({len(a.records)} vs {len(b.records)} records)")
        a_spans, b_spans = a.spans(), b.spans()
        if a_spans != b_spans:
            first = next((i for i, (x, y) in enumerate(zip(a_spans, b_spans)) if x != y),
                         min(len(a_spans), len(b_spans)))
            raise AssertionError(f"kernel {name}: block {b.block}'s lockstep GM spans differ from the block-by-block "
                                 f"ones at span {first} ({len(a_spans)} vs {len(b_spans)} spans)")
