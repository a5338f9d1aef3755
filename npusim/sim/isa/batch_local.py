"""Local-memory access of a lockstep batch: one 2-D view per (scope, dtype), rows x elements, where row ``r`` is
the local memory of the batch's row-``r`` core.  An operand at the same address in every block reads and writes
one 2-D slice (contiguous plans) or one fancy index along the element axis; ``rows`` (None: every row, else an
int64 array of row indices) restricts it to the active rows.
"""
from __future__ import annotations

from typing import Callable

import numpy as np
from numpy.lib.stride_tricks import as_strided

from npusim.sim.checks import check_access, check_aligned
from npusim.sim.isa.plans import AccessPlan


def reader(plan: AccessPlan, base: int) -> Callable:
    """A function (view2d, rows) -> the plan's elements of every active row (rows x plan.size)."""
    if plan.contiguous:
        start = base + plan.first
        stop = start + plan.size

        def read_slice(view, rows):
            return view[:, start:stop] if rows is None else view[rows, start:stop]
        return read_slice
    if plan.grid is not None:
        return _grid_reader(plan, base + int(plan.rel[0]))
    index = plan.rel + base

    def read_index(view, rows):
        return view[:, index] if rows is None else view[rows[:, None], index]
    return read_index


def writer(plan: AccessPlan, base: int) -> Callable:
    """A function (view2d, rows, values) storing values (rows x plan.size, rows x 1 or a scalar) with the last
    write to an element winning, as :meth:`AccessPlan.write` does for one block."""
    if plan.contiguous:
        start = base + plan.first
        stop = start + plan.size

        def write_slice(view, rows, values):
            if rows is None:
                view[:, start:stop] = values
            else:
                view[rows, start:stop] = values
        return write_slice
    if plan.write_sel is None and plan.grid is not None:
        return _grid_writer(plan, base + int(plan.rel[0]))
    if plan.write_sel is None:
        index, select = plan.rel + base, None
    else:
        index, select = plan.write_rel + base, plan.write_sel
    size = plan.size

    def write_index(view, rows, values):
        if select is not None and np.ndim(values) == 2 and values.shape[1] == size:
            values = values[:, select]
        if rows is None:
            view[:, index] = values
        else:
            view[rows[:, None], index] = values
    return write_index


def _grid_view(view, start: int, grid: tuple, writeable: bool):
    """Every row's elements of a grid plan from element ``start``, as a (rows, *grid shape) strided view."""
    shape, strides = grid
    isz = view.strides[1]
    return as_strided(view[:, start:], shape=(view.shape[0],) + shape,
                      strides=(view.strides[0],) + tuple(s * isz for s in strides), writeable=writeable)


def _grid_reader(plan: AccessPlan, start: int) -> Callable:
    grid = plan.grid

    def read_grid(view, rows):
        values = _grid_view(view, start, grid, False)
        if rows is not None:
            values = values[rows]
        return values.reshape(values.shape[0], -1)
    return read_grid


def _grid_writer(plan: AccessPlan, start: int) -> Callable:
    """A writer for a grid plan without repeated elements."""
    grid, size = plan.grid, plan.size
    ones = (1,) * len(grid[0])

    def write_grid(view, rows, values):
        target = _grid_view(view, start, grid, True)
        if np.ndim(values) == 2:
            values = values.reshape((values.shape[0],) + (grid[0] if values.shape[1] == size else ones))
        if rows is None:
            target[...] = values
        else:
            target[rows] = values
    return write_grid


def repeat_lanes(view, rows, plan: AccessPlan, base: int, repeat: int, lanes: int):
    """The active rows' elements of a plan that reads ``repeat`` runs of ``lanes`` consecutive elements, as a
    (rows x repeat x lanes) array (a view where possible), or None for any other plan."""
    if plan.size != repeat * lanes:
        return None
    if plan.contiguous:
        start = base + plan.first
        cube = view[:, start:start + plan.size] if rows is None else view[rows, start:start + plan.size]
        return cube.reshape(cube.shape[0], repeat, lanes)
    if plan.grid is None or plan.grid[0] != (repeat, lanes) or plan.grid[1][1] != 1:
        return None
    cube = _grid_view(view, base + int(plan.rel[0]), plan.grid, False)
    return cube if rows is None else cube[rows]


def read(view, rows, plan: AccessPlan, base: int):
    """One-off :func:`reader` call (plans known only at run time)."""
    return reader(plan, base)(view, rows)


def write(view, rows, plan: AccessPlan, base: int, values) -> None:
    """One-off :func:`writer` call."""
    writer(plan, base)(view, rows, values)


def check_local(site, op, base: int, plan: AccessPlan, align_bytes: int, runtime_base: bool) -> None:
    """The checks :func:`npusim.sim.isa.vector.locate` makes for a local operand whose start is the same in every
    block: alignment of a run-time start, bounds of the plan."""
    if runtime_base and align_bytes and (base * op.isz) % align_bytes:
        check_aligned(site, op.role, base * op.isz, align_bytes)
    if plan.size:
        first, last = base + plan.first, base + plan.last
        if first < op.lo or last >= op.hi:
            check_access(site, op.role, op.buffer, first, last, op.lo, op.hi)


def row_values(site, chosen, convert: Callable, npdt: np.dtype, floats: bool) -> np.ndarray:
    """Per-row scalar operand values (an object array with one entry per active row), converted to ``npdt`` as
    the hardware register holds them, shaped (rows, 1) to broadcast along the elements.  ``floats``: the values
    are known to be Python floats (a float register), converted in one numpy cast."""
    if floats and npdt.kind == "f" and all(type(v) is float for v in chosen):
        with np.errstate(over="ignore"):
            converted = np.asarray(chosen, dtype=np.float64).astype(npdt)
    else:
        converted = np.array([convert(site, v, npdt) for v in chosen], dtype=npdt)
    return converted.reshape(-1, 1)
