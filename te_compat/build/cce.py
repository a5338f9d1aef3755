"""``cce_build_code(sch, config)`` / ``tbe.dsl.build(sch, config)``: lower a schedule to an npusim kernel and
write ``kernel_meta/<name>.o`` and ``<name>.json``.

The schedule is an ``NpuSchedule`` from ``te_compat.schedule.auto_schedule`` (its ``lower(tensor_list, name)``
returns the kernel, whose parameters are the tensor_list entries in order, then any workspaces).  A schedule
without ``lower`` (e.g. a plain ``tvm.create_schedule``) is compiled by the scalar-pipe fallback
``te_compat.fallback.lower_scalar``, which warns that it does so.

Outputs are the tensor_list entries the schedule computes (any entry that is not a placeholder, plus the
schedule's ``outputs``); inputs are the others, in tensor_list order.
"""
from __future__ import annotations

from dataclasses import dataclass
from math import prod
from pathlib import Path
from typing import Optional

from npusim.errors import TbeBuildError, TbeTypeError
from te_compat.build.collect import report_build
from te_compat.build.config import BuildConfig, parse_config
from te_compat.build.kernel_meta import ArgSpec, kernel_meta_dir, write_kernel_files
from te_compat.build.printer import kernel_text
from te_compat.dsl.cast import autocast_notes
from te_compat.objects import dtype_of, raw_tree

_BYTE_DTYPES = frozenset({"bool", "int8", "uint8"})


@dataclass(frozen=True)
class BuildResult:
    """What one build produced: the kernel (an npusim Kernel), its argument specs, the JSON path and the JSON's
    content (written whatever ``need_build`` says, as CANN 2020 does).  Every build is also reported to an open
    :func:`~te_compat.build.collect.collect_builds` (how ops.Custom gets the kernel it asked an impl to build).
    ``autocasts``: per argument, the DSL auto-casts on the way to it (notes naming the function, the instruction
    and the cast; empty for inputs) — what explains an output whose dtype is not the one its caller expects."""

    name: str
    kernel: object
    args: tuple
    json_path: Optional[Path]
    meta: Optional[dict] = None
    autocasts: tuple = ()


def cce_build_code(sch, config) -> None:
    """``te.lang.cce.cce_build_code``: build ``sch`` as the config says (see :mod:`te_compat.build.config`)."""
    build_kernel(sch, config)


def build(sch, config) -> None:
    """``tbe.dsl.build``: like :func:`cce_build_code`; ``sch`` may also be a list of schedules with
    ``tensor_list`` a list of lists (dynamic-shape style).  npusim compiles per concrete shape, where every
    schedule of such a list computes the same op for those shapes: the first one is built."""
    build_kernel(sch, config)


def build_kernel(sch, config, runtime=None) -> BuildResult:
    """Lower for ``runtime``'s target (None: the current runtime, read here at the API edge), optionally print,
    and write the kernel files (also when ``need_build`` is False: CANN 2020 ignores the key); returns the :class:`BuildResult`, also reported to an open
    :func:`~te_compat.build.collect.collect_builds`."""
    if runtime is None:
        from npusim.sim.runtime import current_runtime
        runtime = current_runtime()
    sch, config = raw_tree(sch), raw_tree(config)  # surface wrappers accepted (config["tensor_list"] ...)
    if isinstance(config, dict) and isinstance(sch, (list, tuple)):
        sch, config = _first_schedule(sch, config)
    cfg = parse_config(config)
    args = tuple(_arg_spec(t, i, cfg.name, _schedule_outputs(sch)) for i, t in enumerate(cfg.tensor_list))
    if not any(a.output for a in args):
        raise TbeBuildError(f"cce_build_code of '{cfg.name}': tensor_list has no output (no entry is a compute "
                            f"result; the last entry is usually the result tensor)")
    kernel = _lower(sch, cfg, args, runtime)
    _check_params(kernel, args, cfg.name)
    if cfg.print_ir:
        print(kernel_text(kernel), flush=True)
    autocasts = tuple(autocast_notes(t) if a.output and a.kind == "gm" else () for t, a in zip(cfg.tensor_list, args))
    # need_build=False still builds: CANN 2020's cce_build_code ignores the key, and cube op files (mat_mul,
    # conv2d ...) pass it False and expect their kernel
    classification = str(getattr(sch, "classification", "fallback"))
    json_path, meta = write_kernel_files(kernel_meta_dir(), cfg.name, kernel, args, runtime.target.name,
                                         classification)
    result = BuildResult(cfg.name, kernel, args, json_path, meta, autocasts)
    report_build(result)
    return result


def _first_schedule(schedules, config: dict):
    schedules = [s for s in schedules if s is not None]
    if not schedules:
        raise TbeBuildError(f"build of '{config.get('name', 'cce_op')}': the schedule list is empty")
    tensors = config.get("tensor_list")
    if isinstance(tensors, (list, tuple)) and tensors and isinstance(tensors[0], (list, tuple)):
        if len(tensors) != len(schedules):
            raise TbeBuildError(f"build of '{config.get('name', 'cce_op')}': {len(schedules)} schedules but "
                                f"{len(tensors)} tensor lists")
        config = dict(config, tensor_list=tensors[0])
    return schedules[0], config


def _schedule_outputs(sch) -> tuple:
    outs = raw_tree(getattr(sch, "outputs", None))  # a create_schedule keeps the surface tensors it was given
    if outs is None:
        return ()
    return tuple(outs) if isinstance(outs, (list, tuple)) else (outs,)


def _same(a, b) -> bool:
    same_as = getattr(a, "same_as", None)
    return a is b or (same_as is not None and bool(same_as(b)))


def _arg_spec(tensor, index: int, name: str, sch_outputs: tuple) -> ArgSpec:
    from npusim.sim.dtypes import canonical_dtype
    where = f"cce_build_code of '{name}': tensor_list[{index}]"
    try:
        dtype_text = dtype_of(tensor)  # TVM 0.27 scalar Vars have no ``dtype`` attribute
    except TbeTypeError:
        dtype_text = None
    arg_name = str(getattr(tensor, "name", f"arg{index}"))
    if dtype_text is None:
        raise TbeBuildError(f"{where} is not a tensor (got {type(tensor).__name__} {tensor!r})")
    try:
        dtype = canonical_dtype(str(dtype_text))
    except Exception as exc:
        raise TbeBuildError(f"{where} ('{arg_name}') has dtype {dtype_text!s}, which npusim cannot run") from exc
    op = getattr(tensor, "op", None)
    if op is None:  # a scalar argument (tvm Var)
        return ArgSpec(arg_name, (), dtype, "scalar", False)
    shape = []
    for dim in tensor.shape:
        try:
            shape.append(int(dim))
        except (TypeError, ValueError):
            raise TbeBuildError(f"{where} ('{arg_name}') has a symbolic dimension {dim}: npusim compiles per "
                                f"concrete shape") from None
    output = type(op).__name__ != "PlaceholderOp" or any(_same(tensor, o) for o in sch_outputs)
    return ArgSpec(arg_name, tuple(shape), dtype, "gm", output)


def _lower(sch, cfg: BuildConfig, args: tuple, runtime):
    lower = getattr(sch, "lower", None)
    if lower is not None:
        kernel = lower(list(cfg.tensor_list), cfg.name, runtime)
    else:
        try:
            from te_compat.fallback import lower_scalar
        except ImportError as exc:
            raise TbeBuildError(f"cce_build_code of '{cfg.name}': the schedule is a {type(sch).__name__} (not "
                                f"from auto_schedule) and the scalar-pipe fallback is not available") from exc
        outs = [t for t, a in zip(cfg.tensor_list, args) if a.output]
        kernel = lower_scalar(outs, list(cfg.tensor_list), cfg.name,
                              f"the schedule is a {type(sch).__name__}, not one made by auto_schedule", runtime)
    from npusim.sim.kernel import Kernel
    if not isinstance(kernel, Kernel):
        raise TbeBuildError(f"cce_build_code of '{cfg.name}': lowering returned {type(kernel).__name__}, "
                            f"not an npusim Kernel")
    return kernel


def _check_params(kernel, args: tuple, name: str) -> None:
    """The kernel's non-workspace parameters must be the tensor_list entries (count, kind, size, dtype)."""
    params = [p for p in kernel.params if p.kind != "workspace"]
    if len(params) != len(args):
        raise TbeBuildError(f"cce_build_code of '{name}': the lowered kernel takes {len(params)} argument(s) "
                            f"({', '.join(p.name for p in params)}) but tensor_list has {len(args)}")
    for param, arg in zip(params, args):
        if (param.kind == "scalar") != (arg.kind == "scalar"):
            raise TbeBuildError(f"cce_build_code of '{name}': argument '{arg.name}' is a {arg.kind} but the "
                                f"kernel's parameter '{param.name}' is a {param.kind}")
        same_dtype = param.dtype == arg.dtype or {param.dtype, arg.dtype} <= _BYTE_DTYPES
        if not same_dtype or (arg.kind == "gm" and param.size_elems != int(prod(arg.shape))):
            raise TbeBuildError(f"cce_build_code of '{name}': argument '{arg.name}' is {arg.dtype}{list(arg.shape)}"
                                f" but the kernel's parameter '{param.name}' is {param.dtype}{list(param.shape)}")


__all__ = ["BuildResult", "build", "build_kernel", "cce_build_code"]
