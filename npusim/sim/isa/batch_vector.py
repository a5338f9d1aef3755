"""Lockstep-batch forms of the vector families (element-wise, vconv, reductions): one numpy evaluation for every
active block of a batch (:mod:`npusim.sim.lockstep`).

A batched form exists when every operand sits at the same local address in every block and the mask, repeat and
strides are the same too (no ``block_idx``, no register in them); other instructions run block by block in the
batch.  When the operands' starts and the plans are compile-time constants, every check the single-block form
makes at run time was made when compiling (or is made here, once), so running is: one 2-D slice or gather per
source, the row semantics, one 2-D store, and the trace record.  Results are the single-block ones: the same
numpy operations on the same dtypes, applied to rows x elements instead of elements.
"""
from __future__ import annotations

from typing import Callable, Optional

import numpy as np

from npusim.sim.batch_expr import CONST, compile_batch_expr, evaluator_for
from npusim.sim.isa.batch_local import check_local, read, reader, repeat_lanes, row_values, write, writer
from npusim.sim.isa.context import CompileContext
from npusim.sim.isa.plans import check_accumulating_dst, check_overlap
from npusim.sim.isa.saturate import has_nonfinite
from npusim.sim.kernel import BufRef, Var

from npusim.sim.isa.half_native import HALF_OPS, half_into

try:    # the compiled float32 loops with the non-finite check in the same pass (setup.py builds them)
    from npusim.sim.isa._native import binary_f32 as _native_binary
except ImportError:  # pragma: no cover - a source tree without built extensions
    _native_binary = None

#: float32 ufuncs the compiled loop computes (its op codes); used only on saturating chips, where NaN payloads
#: are lost (float16 ones: HALF_OPS, on any chip: that loop declines wherever a NaN arises)
_NATIVE_OPS = {} if _native_binary is None else {np.add: 0, np.subtract: 1, np.multiply: 2}


def shape_is_uniform(kc: CompileContext, instr, skip=("scalar",)) -> bool:
    """Whether every non-tensor operand but ``skip`` is the same in every block of a batch."""
    values = [value for name, value in instr.args if name not in skip and not isinstance(value, BufRef)]
    return kc.batch_uniform(*values)


def uniform_bases(kc: CompileContext, tensors) -> Optional[list]:
    """The operands' batch start expressions when all are uniform, else None."""
    bases = [kc.batch_base(op) for op in tensors]
    return bases if all(b.uniform for b in bases) else None


def batch_scalar(kc: CompileContext, instr, npdt: np.dtype, single: Callable, name: str = "scalar") -> Callable:
    """b -> the scalar operand for the active rows: the single-block conversion ``single(env)`` when it is the same
    in every block, else per-row values shaped (rows, 1)."""
    expr = instr.arg(name)
    bexpr = compile_batch_expr(expr, kc.slots)
    if bexpr.uniform:
        return lambda b: single(b.env)
    from npusim.sim.isa.vector import _to_dtype
    evaluate = evaluator_for(bexpr)
    site = kc.site
    floats = isinstance(expr, Var) and any(r.name == expr.name and r.dtype.startswith("float")
                                           for r in kc.kernel.scalars)

    def per_row(b):
        values = evaluate(b)
        if not isinstance(values, np.ndarray):
            return _to_dtype(site, values, npdt)
        if values.dtype != object:
            values = np.array(values.tolist() + [None], dtype=object)[:-1]
        return row_values(site, values, _to_dtype, npdt, floats)
    return per_row


def elementwise_batch(kc: CompileContext, instr, tensors: tuple, shape, semantics: Callable, npdt: np.dtype,
                      dst_reads: bool, scalar: Optional[Callable], record_index: int, ufunc=None,
                      fix=None) -> Optional[Callable]:
    """The batched form of :func:`npusim.sim.isa.vector.compile_elementwise`'s instruction, or None.  ``ufunc``:
    the row's numpy ufunc when its semantics is ``ufunc(*sources[, scalar])`` (then results may be computed
    straight into a contiguous destination); ``fix``: the chip's saturation of the results (or None)."""
    if not shape_is_uniform(kc, instr):
        return None
    bases = uniform_bases(kc, tensors)
    if bases is None:
        return None
    if shape.static_plans is not None and all(b.kind == CONST for b in bases):
        general = _static_elementwise(tensors, [b.value for b in bases], shape.static_plans, semantics, npdt,
                                      dst_reads, scalar, record_index)
        if ufunc is None or dst_reads or not shape.static_plans[1][0].contiguous or \
                (npdt.kind != "f" and ufunc is np.divide):
            return general
        return _into_destination(tensors, [b.value for b in bases], shape.static_plans, ufunc, fix, scalar,
                                 record_index, general)
    return _dynamic_elementwise(kc, tensors, [evaluator_for(b) for b in bases], [b.kind != CONST for b in bases],
                                shape, semantics, npdt, dst_reads, scalar, record_index)


def _static_elementwise(tensors, bases, static_plans, semantics, npdt, dst_reads, scalar, record_index):
    repeat, plans = static_plans
    dkey = tensors[0].key
    pairs = [(reader(plan, base), op.key) for op, plan, base in zip(tensors[1:], plans[1:], bases[1:])]
    if dst_reads:
        pairs.append((reader(plans[0], bases[0]), dkey))
    pairs = tuple(pairs)
    store = writer(plans[0], bases[0])
    record = (record_index, repeat)
    if scalar is None:
        def batch(b):
            views, rows = b.views, b.rows
            store(views[dkey], rows, semantics([get(views[key], rows) for get, key in pairs], None, npdt))
            b.append(record)
        return batch

    def batch_scalar_op(b):
        views, rows = b.views, b.rows
        value = scalar(b)
        store(views[dkey], rows, semantics([get(views[key], rows) for get, key in pairs], value, npdt))
        b.append(record)
    return batch_scalar_op


def _into_destination(tensors, bases, static_plans, ufunc, fix, scalar, record_index, general) -> Callable:
    """While every row is active: ``ufunc(sources..., out=destination slice)``, then saturation of the slice
    in place where it holds a non-finite value (numpy computes overlapping operands as if from copies, so this
    is what computing a new array and storing it gives).  Otherwise the ``general`` form."""
    repeat, plans = static_plans
    dkey, start = tensors[0].key, bases[0] + plans[0].first
    stop = start + plans[0].size
    pairs = tuple((reader(plan, base), op.key) for op, plan, base in zip(tensors[1:], plans[1:], bases[1:]))
    record = (record_index, repeat)

    two_tensors = scalar is None and len(pairs) == 2
    native_op = _NATIVE_OPS.get(ufunc) if fix is not None and two_tensors else None
    half_op = HALF_OPS.get(ufunc) if two_tensors else None

    def batch(b):
        if b.rows is not None:
            general(b)
            return
        views = b.views
        out = views[dkey][:, start:stop]
        args = [get(views[key], None) for get, key in pairs]
        status = -1
        if native_op is not None and out.dtype == args[0].dtype == args[1].dtype == np.float32:
            status = _native_binary(native_op, args[0], args[1], out)
        elif half_op is not None and out.dtype == np.float16:
            status = half_into(half_op, args[0], args[1], out)
        if status >= 0:
            if status and fix is not None:
                out[...] = fix(out)
            b.append(record)
            return
        if scalar is not None:
            args.append(scalar(b))
        ufunc(*args, out=out)
        if fix is not None and has_nonfinite(out):
            out[...] = fix(out)
        b.append(record)
    return batch


def _dynamic_elementwise(kc, tensors, base_fns, runtime, shape, semantics, npdt, dst_reads, scalar, record_index):
    site, align = kc.site, kc.chip.block_bytes
    dst, sources = tensors[0], tensors[1:]

    def batch(b):
        repeat, plans = shape.plans(b.env)
        bases = [fn(b) for fn in base_fns]
        for op, base, plan, late in zip(tensors, bases, plans, runtime):
            check_local(site, op, base, plan, align, late)
        for op, base, plan in zip(sources, bases[1:], plans[1:]):
            check_overlap(site, dst, bases[0], plans[0], op, base, plan, elementwise=True)
        views, rows = b.views, b.rows
        inputs = [read(views[op.key], rows, plan, base) for op, plan, base in zip(sources, plans[1:], bases[1:])]
        if dst_reads:
            check_accumulating_dst(site, dst, plans[0])
            inputs.append(read(views[dst.key], rows, plans[0], bases[0]))
        value = scalar(b) if scalar is not None else None
        write(views[dst.key], rows, plans[0], bases[0], semantics(inputs, value, npdt))
        b.append((record_index, repeat))
    return batch


def conv_batch(kc: CompileContext, instr, dst, src, shape, semantics: Callable, args: tuple,
               record_index: int) -> Optional[Callable]:
    """The batched form of vconv: ``semantics(values, *args)``."""
    if not shape_is_uniform(kc, instr, skip=("deqscale",)):
        return None
    bases = uniform_bases(kc, (dst, src))
    if bases is None:
        return None
    site, align = kc.site, kc.chip.block_bytes
    fns = [evaluator_for(b) for b in bases]
    late = [b.kind != CONST for b in bases]

    def batch(b):
        repeat, (dst_plan, src_plan) = shape.plans(b.env)
        d0, s0 = fns[0](b), fns[1](b)
        check_local(site, dst, d0, dst_plan, align, late[0])
        check_local(site, src, s0, src_plan, align, late[1])
        check_overlap(site, dst, d0, dst_plan, src, s0, src_plan, elementwise=True)
        views, rows = b.views, b.rows
        values = read(views[src.key], rows, src_plan, s0)
        write(views[dst.key], rows, dst_plan, d0, semantics(values, *args))
        b.append((record_index, repeat))
    return batch


def reduce_batch(kc: CompileContext, instr, dst, src, shape, dst_stride, per_repeat: int, fill_value,
                 reduce: Callable, record_index: int, on_cube: Optional[Callable] = None) -> Optional[Callable]:
    """The batched form of vcadd / vcmax / vcmin: every active row's repeats are rows of one grid.
    ``on_cube``: the reduction of (rows x repeats x lanes) data, flat results, used when every lane is active
    and the source is whole repeats of consecutive lanes (read in place, no gathered copy)."""
    if not shape_is_uniform(kc, instr):
        return None
    bases = uniform_bases(kc, (dst, src))
    if bases is None:
        return None
    site, align, lanes = kc.site, kc.chip.block_bytes, shape.lanes
    strided_plan, mask_lanes = kc.plans.strided, kc.plans.mask_lanes
    fns = [evaluator_for(b) for b in bases]
    late = [b.kind != CONST for b in bases]
    stride_fn = evaluator_for(compile_batch_expr(instr.arg("dst_rep_stride"), kc.slots))

    def batch(b):
        repeat, (src_plan,) = shape.plans(b.env)
        stride = stride_fn(b)
        dst_plan = strided_plan(repeat, per_repeat, stride * per_repeat)
        d0, s0 = fns[0](b), fns[1](b)
        check_local(site, dst, d0, dst_plan, 0, late[0])
        check_local(site, src, s0, src_plan, align, late[1])
        check_overlap(site, dst, d0, dst_plan, src, s0, src_plan, elementwise=False)
        mask = shape.mask.value if hasattr(shape.mask, "value") else shape.mask(b.env)
        active = mask_lanes(mask, lanes)
        views, rows = b.views, b.rows
        if on_cube is not None and repeat and active.size == lanes:
            cube = repeat_lanes(views[src.key], rows, src_plan, s0, repeat, lanes)
            if cube is not None:
                write(views[dst.key], rows, dst_plan, d0, on_cube(cube).reshape(cube.shape[0], repeat))
                b.append((record_index, repeat))
                return
        values = read(views[src.key], rows, src_plan, s0)
        count = values.shape[0] * repeat
        if active.size == lanes:
            grid = values.reshape(count, lanes)
        else:
            grid = np.full((count, lanes), fill_value, dtype=values.dtype)
            grid[:, active] = values.reshape(count, active.size)
        if repeat:
            write(views[dst.key], rows, dst_plan, d0, reduce(grid).reshape(values.shape[0], -1))
        b.append((record_index, repeat))
    return batch
