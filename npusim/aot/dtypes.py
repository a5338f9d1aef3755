"""dtype names as aot kernels receive them in ``dtypes[i]``.

MindSpore passes ``TypeIdToString(type, true)``: for every dtype numpy can hold that is the numpy name
("float32", "int64", "bool" ...), so the mapping is the identity on this set.
"""
from __future__ import annotations

import numpy as np

from npusim.errors import OpTypeError

#: dtype names an aot kernel may receive.
MS_DTYPE_NAMES = frozenset({
    "bool",
    "int8", "int16", "int32", "int64",
    "uint8", "uint16", "uint32", "uint64",
    "float16", "float32", "float64", "bfloat16",
    "complex64", "complex128",
})


def ms_dtype_name(dtype, op_name: str) -> str:
    """The dtype string a kernel sees for ``dtype`` (numpy dtype or name); OpTypeError if aot cannot pass it."""
    try:
        name = np.dtype(dtype).name
    except TypeError as error:
        raise OpTypeError(f"Custom op '{op_name}': {dtype!r} is not a dtype an aot kernel can receive") from error
    if name not in MS_DTYPE_NAMES:
        raise OpTypeError(f"Custom op '{op_name}': aot kernels cannot receive tensors of dtype {name!r} "
                          f"(supported: {', '.join(sorted(MS_DTYPE_NAMES))})")
    return name
