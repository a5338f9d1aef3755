"""Shared helpers of the AICPU tests (a uniquely named module, so test files never import "conftest")."""
from __future__ import annotations

from pathlib import Path

from npusim.custom.backends.base import CallAttrs

KERNEL_DIR = Path(__file__).parent / "kernels"
TEST_LIBRARY_NAME = "npusim_test_kernels"

def reg_info(op_name: str, n_inputs: int, n_outputs: int, attrs=(), rows=()) -> dict:
    """A reg-info dict shaped like CustomRegOp(...).get_op_info(); attrs: (name, type[, default]) tuples."""
    attr_entries = []
    for attr in attrs:
        entry = {"name": attr[0], "paramType": "required", "type": attr[1]}
        if len(attr) > 2:
            entry["defaultValue"] = attr[2]
        attr_entries.append(entry)
    return {
        "op_name": op_name,
        "inputs": [{"index": i, "name": f"x{i}", "paramType": "required"} for i in range(n_inputs)],
        "outputs": [{"index": i, "name": f"y{i}", "paramType": "required"} for i in range(n_outputs)],
        "attr": attr_entries,
        "fusion_type": "OPAQUE",
        "dtype_format": [tuple(row) for row in rows],
        "target": "Ascend",
    }


class OpRunner:
    """An AicpuBackend plus a convenient call: run(inputs, out_shapes, out_dtypes, **attrs)."""

    def __init__(self, backend: AicpuBackend):
        self.backend = backend

    def __call__(self, inputs, out_shapes, out_dtypes, **attrs):
        call_attrs = CallAttrs(tuple(attrs), tuple(attrs.values()))
        return self.backend.launch(list(inputs), call_attrs, [tuple(s) for s in out_shapes], list(out_dtypes))
