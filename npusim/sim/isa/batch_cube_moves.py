"""Compiled whole-batch copies for the data_moves that feed the cube (issue 15): GM -> L1 and L1 -> L0A / L0B,
L0C -> UB, every active block of a lockstep batch in one call of :mod:`npusim.sim.isa._native` (``copy_gm_rows``,
``copy_grid``) instead of a numpy read into a new buffer and a write from it.  They apply when every block of the
batch is active, the destination is a local scope at one address in every block, and (local sources) the source
is another scope at one address too; the bytes are those of :mod:`npusim.sim.isa.batch_moves`' read-then-write
(source and destination never share memory there).  Without the extension, or where a copy does not apply, the
caller runs its numpy form.
"""
from __future__ import annotations

from typing import Callable, Optional

import numpy as np

try:    # the compiled copies (setup.py builds them)
    from npusim.sim.isa._native import copy_gm_rows as _native_gm_rows
    from npusim.sim.isa._native import copy_grid as _native_grid
except ImportError:  # pragma: no cover - a source tree without built extensions
    _native_gm_rows = _native_grid = None


def fast_copier(src_b, dst_b, log_read: Callable) -> Optional[Callable]:
    """For a data_move from ``src_b`` to ``dst_b`` (byte-view operands): ``copy(b, s0, d0, geometry) -> bool``
    that moves the bytes of every block of batch ``b`` (starts ``s0`` / ``d0``: an int or one per active block;
    geometry (nburst, burst_bytes, src_pitch, dst_pitch)) and returns True, or returns False having moved nothing;
    ``log_read(b, starts, geometry)`` records a GM source's read (as the numpy read does).  None when no compiled
    copy can apply to the move."""
    if _native_grid is None or dst_b.is_gm:
        return None
    if not src_b.is_gm:
        if src_b.space == dst_b.space:
            return None                 # one arena: the numpy form handles overlapping bursts
        return lambda b, s0, d0, geometry: _between_scopes(b, src_b.key, dst_b.key, s0, d0, geometry)

    def from_gm(b, s0, d0, geometry) -> bool:
        nburst, burst_bytes, src_pitch, dst_pitch = geometry
        if b.rows is not None or type(d0) is not int:
            return False
        starts = s0 if isinstance(s0, np.ndarray) else np.full(b.active_count(), s0, dtype=np.int64)
        starts = np.ascontiguousarray(starts, dtype=np.int64)
        if _native_gm_rows(b.views[dst_b.key], d0, dst_pitch, b.views[src_b.key], starts, src_pitch, nburst,
                           burst_bytes) != 0:
            return False
        log_read(b, starts, (nburst, burst_bytes, src_pitch))
        return True
    return from_gm


def _between_scopes(b, src_key, dst_key, s0, d0, geometry: tuple) -> bool:
    nburst, burst_bytes, src_pitch, dst_pitch = geometry
    if b.rows is not None or type(s0) is not int or type(d0) is not int:
        return False
    return _native_grid(b.views[dst_key], d0, dst_pitch, b.views[src_key], s0, src_pitch, nburst,
                        burst_bytes) == 0
