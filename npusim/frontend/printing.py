"""MindSpore's ``repr`` of a Tensor: ``Tensor(shape=[2], dtype=Float32, value= [ 1.00000000e+00,  2.00000000e+00])``."""
import numpy as np


def _scalar_text(value) -> str:
    if isinstance(value, (bool, np.bool_)):
        return "True" if value else "False"
    if isinstance(value, (float, np.floating)):
        return f"{float(value):g}" if np.isfinite(value) else str(float(value))
    return str(value)


def tensor_repr(tensor) -> str:
    arr = tensor.asnumpy()
    head = f"Tensor(shape={list(arr.shape)}, dtype={tensor.dtype}, value="
    if arr.ndim == 0:
        return f"{head} {_scalar_text(arr.item())})"
    formatter = None
    if arr.dtype.kind == "f":
        formatter = {"float_kind": lambda v: f"{v: .8e}"}
    body = np.array2string(arr, separator=", ", formatter=formatter, threshold=1000)
    sep = " " if arr.ndim == 1 else "\n"
    return f"{head}{sep}{body})"
