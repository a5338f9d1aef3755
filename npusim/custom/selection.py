"""Kernel selection: match a call's input dtypes against the reg-info ``dtype_format`` rows."""
from __future__ import annotations

from npusim.custom.reg_info import DYNAMIC, group_sizes, param_type
from npusim.errors import KernelSelectionError

_DEFAULT_FORMATS = ("", "DefaultFormat", "ND")


def _row_text(row, n_inputs):
    ins = ", ".join(d or "any" for d, _ in row[:n_inputs])
    outs = ", ".join(d or "any" for d, _ in row[n_inputs:])
    return f"({ins}) -> ({outs})"


def _expanded(row, sizes: list[int]):
    """``row`` with each input column repeated for the tensors its input takes (a dynamic input's column applies
    to every tensor of the input, as in MindSpore's kernel selection); the output columns follow unchanged."""
    columns = [column for column, size in zip(row, sizes) for _ in range(size)]
    return tuple(columns) + tuple(row[len(sizes):])


def _given_columns(row, n: int, n_declared: int):
    """``row`` without the columns of trailing optional inputs the call left out (MatMul's bias): one column per
    given tensor, then the outputs."""
    return tuple(row[:n]) + tuple(row[max(n, n_declared):])


def select_row(op_name: str, func_type: str, reg: dict | None, in_dtypes: list[str], out_dtypes=None):
    """The dtype_format row matching ``in_dtypes`` (and ``out_dtypes`` when given: rows may differ only in their
    outputs; rows with default formats preferred), or None if the op declares no rows.  No match →
    KernelSelectionError listing the supported rows.  With a ``dynamic`` input the row returned has that input's
    column once per tensor (``in_dtypes`` is one dtype per tensor); the columns of trailing optional inputs the
    call left out are dropped."""
    rows = (reg or {}).get("dtype_format") or []
    if not rows:
        return None
    entries = (reg or {}).get("inputs") or []
    n = len(in_dtypes)
    if any(param_type(entry) == DYNAMIC for entry in entries):
        sizes = group_sizes(op_name, entries, len(in_dtypes))
        rows = [_expanded(row, sizes) for row in rows]
    else:
        rows = [_given_columns(row, n, len(entries)) for row in rows]
    matches = [row for row in rows
               if len(row) >= n and all(col[0] in ("", dt) for col, dt in zip(row[:n], in_dtypes))
               and (out_dtypes is None or all(col[0] in ("", dt) for col, dt in zip(row[n:], out_dtypes)))]
    for row in matches:
        if all(col[1] in _DEFAULT_FORMATS for col in row[:n]):
            return row
    if matches:
        return matches[0]
    supported = "; ".join(_row_text(row, n) for row in rows)
    outs = "" if out_dtypes is None else f" and output dtypes ({', '.join(out_dtypes)})"
    raise KernelSelectionError(
        f"For 'Custom' op '{op_name}' (func_type={func_type!r}): no kernel for input dtypes "
        f"({', '.join(in_dtypes)}){outs}. Supported dtype_format rows (inputs) -> (outputs): {supported}")
