"""``BuildCCE``: a TIK kernel to an npusim Kernel (with pipe synchronisation) and ``kernel_meta/<name>.o/.json``,
handed to an open :func:`~te_compat.build.collect_builds` like a ``cce_build_code`` build (so an impl that builds
with TIK runs through ``ops.Custom(func_type="tbe")``)."""
from __future__ import annotations

from pathlib import Path

from npusim.errors import InvalidOperandError
from npusim.errors.tik import TikSyntaxError
from te_compat.build.cce import BuildResult
from te_compat.build.collect import report_build
from te_compat.build.config import check_kernel_name
from te_compat.build.kernel_meta import DIR_NAME, ArgSpec, kernel_meta_dir, write_kernel_files
from te_compat.tik.objects import TikInputScalar, TikTensor
from te_compat.tik.sync import insert_sync

CLASSIFICATION = "tik"


def _as_list(items) -> list:
    if items is None:
        return []
    return list(items) if isinstance(items, (list, tuple)) else [items]


def _arg(item, output: bool, kernel_name: str) -> ArgSpec:
    if isinstance(item, TikTensor) and item.scope == "GM" and not item.is_workspace:
        return ArgSpec(item.user_name, tuple(item.shape), item.view_dtype or item.dtype, "gm", output)
    if isinstance(item, TikInputScalar) and not output:
        return ArgSpec(item.name, (), item.dtype, "scalar", False)
    raise TikSyntaxError(f"BuildCCE of '{kernel_name}': {'outputs' if output else 'inputs'} should hold GM Tensors"
                         f"{'' if output else ' and InputScalars'}, input: {item!r}")


def build_cce(tik, kernel_name, inputs, outputs, flowtable, output_files_path) -> BuildResult:
    """Lower ``tik``'s statements as kernel ``kernel_name`` and write its files; returns the BuildResult."""
    name = check_kernel_name(kernel_name)
    ins = _as_list(inputs) + _as_list(flowtable)
    outs = _as_list(outputs)
    args = tuple([_arg(i, False, name) for i in ins] + [_arg(o, True, name) for o in outs])
    builder = tik._kb
    if len(builder._stack) != 1:
        raise TikSyntaxError(f"BuildCCE of '{name}' inside an open for_range / if_scope")
    builder.name = name
    tik.prints.declare(tik._block_num)
    try:
        kernel = builder.build(inputs=ins, outputs=outs, check=False)
    except InvalidOperandError as exc:
        raise TikSyntaxError(f"BuildCCE of '{name}': {exc}") from exc
    kernel = insert_sync(kernel, tik.chip, tik.buffered)
    from npusim.sim.compiler import compile_for
    compile_for(kernel, tik.chip, tik.runtime.store.sim)  # operand errors the TIK checks left surface now
    directory = Path(output_files_path) / DIR_NAME if output_files_path else kernel_meta_dir()
    json_path, meta = write_kernel_files(directory, name, kernel, args, tik.runtime.target.name, CLASSIFICATION)
    result = BuildResult(name, kernel, args, json_path, meta)
    report_build(result)
    return result


__all__ = ["build_cce"]
