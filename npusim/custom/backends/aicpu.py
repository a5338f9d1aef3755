"""``ops.Custom(func_type="aicpu")``: runs a C++ AICPU kernel (CANN ``CpuKernel`` API) on the simulated AI CPU.

The op type is the reg info's ``op_name``; the ``cust_aicpu`` attribute (call argument, or the attr's value /
default in the reg info) names the library X → ``libX.so`` (search order: :mod:`aicpu_loader.lookup`); the other
attributes reach the kernel as ``AttrValue``s of their reg-info type.  Kernels run in the worker process of
:mod:`aicpu_loader.worker`; outputs whose shape the kernel sets come back with that shape.
"""
from __future__ import annotations

import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from aicpu_loader import lookup, protocol
from aicpu_loader.plan import CallPlan, OutputSpec, plan_call
from aicpu_loader.worker import WORKER_RESOURCE, AicpuWorker
from npusim.custom.backends.base import Backend, CallAttrs, OpDesc
from npusim.errors import AicpuAttrError, AicpuLibraryLoadError, OpValueError
from npusim.util.cache import BoundedCache

#: the attribute naming the kernel library
LIBRARY_ATTR = "cust_aicpu"
#: what one op keeps per call signature: call plans, encoded attribute sets, library paths, dtype_format rows
PLAN_ENTRIES = 256
#: a dynamic output has room for at least this many elements per unit of its known dims
DYNAMIC_MIN_ELEMENTS = 1024


@dataclass(frozen=True)
class AttrSpec:
    """One reg-info attribute: its name, declared type, and the value used when a call does not pass it."""

    name: str
    value_type: str | None
    default: Any = None


def _attr_specs(reg: dict) -> tuple[AttrSpec, ...]:
    specs = []
    for entry in reg.get("attr") or []:
        default = entry.get("value")
        if default is None:
            default = entry.get("defaultValue", entry.get("default_value"))
        specs.append(AttrSpec(entry.get("name", f"attr{len(specs)}"), entry.get("type"), default))
    return tuple(specs)


class AicpuBackend(Backend):
    """Backend of func_type "aicpu".  ``timeout_s`` (None: the worker's default) bounds one kernel call;
    ``last_log_lines`` holds what the kernel logged in the latest successful call."""

    can_infer = False
    needs_runtime = True   # the worker is the call's runtime's

    def __init__(self, desc: OpDesc, runtime=None):
        super().__init__(desc, runtime)
        reg = desc.reg_info
        if reg is None:
            raise OpValueError(f"For 'Custom' op '{desc.name}', the 'reg_info' of func_type 'aicpu' must be set "
                               f"(its op_name names the AICPU kernel), but got None")
        if not isinstance(reg, dict) or not reg.get("op_name"):
            raise OpValueError(f"For 'Custom' op '{desc.name}' (func_type 'aicpu'), the reg_info must be a dict "
                               f"with a non-empty 'op_name', but got {reg!r}")
        self.op_type: str = reg["op_name"]
        self.attr_specs = _attr_specs(reg)
        self._types = {spec.name: spec.value_type for spec in self.attr_specs}
        self._defaults = {spec.name: spec.default for spec in self.attr_specs if spec.default is not None}
        self._rows = [list(row) for row in reg.get("dtype_format") or []]
        self._n_inputs = len(reg.get("inputs") or [])
        self.timeout_s: float | None = None
        self.last_log_lines: tuple = ()
        self._libraries = BoundedCache(f"aicpu.libraries[{self.op_type}]", PLAN_ENTRIES)
        self._encoded_attrs = BoundedCache(f"aicpu.attrs[{self.op_type}]", PLAN_ENTRIES)
        self._formats = BoundedCache(f"aicpu.formats[{self.op_type}]", PLAN_ENTRIES)
        self._plans = BoundedCache(f"aicpu.plans[{self.op_type}]", PLAN_ENTRIES)

    # ---- per call ----------------------------------------------------------------------------------------------
    def launch(self, inputs: list[np.ndarray], attrs: CallAttrs, out_shapes: list[tuple],
               out_dtypes: list[str], runtime=None) -> list[np.ndarray]:
        """Run the kernel on ``inputs`` in ``runtime``'s worker; one array per output (dynamic outputs shaped as
        the kernel set them)."""
        worker = (runtime or self.runtime).resource(WORKER_RESOURCE, AicpuWorker)
        arrays = [a if isinstance(a, np.ndarray) else np.asarray(a) for a in inputs]
        key = self._plan_key(arrays, attrs, out_shapes, out_dtypes)
        plan = self._plans.get(key)
        if plan is None:
            plan = self._plans.put(key, self._make_plan(arrays, attrs, out_shapes, out_dtypes))
        try:
            result = worker.run(plan, arrays, self.timeout_s)
        except AicpuLibraryLoadError:
            if os.path.exists(plan.library):
                raise
            self._plans.clear()  # the library moved away since it was looked up: look it up again, once
            self._libraries.clear()
            result = worker.run(self._make_plan(arrays, attrs, out_shapes, out_dtypes), arrays, self.timeout_s)
        self.last_log_lines = result.log_lines
        return result.outputs

    @staticmethod
    def _plan_key(arrays, attrs: CallAttrs, out_shapes, out_dtypes) -> tuple:
        """What a call's plan depends on.  Attribute values enter by repr: hashable whatever they hold (lists), and
        True, 1 and 1.0 (equal in Python) stay apart, as they encode differently for the kernel."""
        return (attrs.names, repr(attrs.values), tuple([(a.shape, a.dtype) for a in arrays]),
                tuple([tuple(s) for s in out_shapes]), tuple(out_dtypes), lookup.env_setting())

    def _make_plan(self, arrays, attrs: CallAttrs, out_shapes, out_dtypes) -> CallPlan:
        values = dict(self._defaults)
        values.update(zip(attrs.names, attrs.values))
        library = self._library(values.get(LIBRARY_ATTR))
        blob, count = self._encode(values)
        in_formats, out_formats = self._row_formats(arrays, len(out_dtypes))
        outputs = [self._output_spec(shape, dtype, arrays, fmt)
                   for shape, dtype, fmt in zip(out_shapes, out_dtypes, out_formats)]
        return plan_call(str(library), self.op_type, [(a.shape, a.dtype) for a in arrays], outputs, blob, count,
                         in_formats)

    def _library(self, name) -> Path:
        if name is not None and not isinstance(name, str):
            raise AicpuAttrError(f"AICPU op '{self.op_type}': '{LIBRARY_ATTR}' must be a str naming the kernel "
                                 f"library, but got {type(name).__name__} {name!r}")
        key = (name, lookup.env_setting())
        path = self._libraries.get(key)
        if path is None:
            path = self._libraries.put(key, lookup.find_library(name))
        return path

    def _encode(self, values: dict) -> tuple[bytes, int]:
        key = repr(tuple(values.items()))  # by repr: True / 1 / 1.0 encode differently and must not share
        cached = self._encoded_attrs.get(key)
        if cached is not None:
            return cached
        items = [(name, value, self._types.get(name)) for name, value in values.items()]
        encoded = protocol.encode_attrs(self.op_type, items)
        return self._encoded_attrs.put(key, encoded)

    def _row_formats(self, arrays: list[np.ndarray], n_outputs: int) -> tuple[list[int], list[int]]:
        """CANN format codes of the dtype_format row matching the input dtypes (ND when none matches)."""
        key = tuple(a.dtype for a in arrays)
        cached = self._formats.get(key)
        if cached is None:
            cached = ([protocol.FORMAT_ND] * len(arrays), [protocol.FORMAT_ND] * n_outputs)
            for row in self._rows:
                if len(row) >= len(arrays) and all(_pair(p)[0] in ("", d.name) for p, d in zip(row, key)):
                    codes = [protocol.FORMAT_CODES.get(_pair(p)[1], protocol.FORMAT_ND) for p in row]
                    outs = codes[len(arrays):len(arrays) + n_outputs]
                    cached = (codes[:len(arrays)], outs + [protocol.FORMAT_ND] * (n_outputs - len(outs)))
                    break
            self._formats.put(key, cached)
        return cached

    @staticmethod
    def _output_spec(shape, dtype: str, arrays: list[np.ndarray], format_code: int) -> OutputSpec:
        """The buffer of one output.  A negative dim marks a dynamic output (-2: unknown rank); it gets room for
        (product of its known dims) x max(largest input's element count, DYNAMIC_MIN_ELEMENTS) elements, and its
        shape is left unknown for the kernel to set."""
        dims = tuple(int(d) for d in shape)
        itemsize = np.dtype(dtype).itemsize
        if all(d >= 0 for d in dims):
            return OutputSpec(dtype, dims, math.prod(dims) * itemsize, False, format_code)
        known = math.prod(d for d in dims if d > 0)
        largest = max((a.size for a in arrays), default=0)
        capacity = known * max(largest, DYNAMIC_MIN_ELEMENTS) * itemsize
        declared = (-2,) if -2 in dims else dims
        return OutputSpec(dtype, declared, capacity, True, format_code)


def _pair(entry) -> tuple[str, str]:
    """A dtype_format entry as (dtype, format): accepts ("float32", "DefaultFormat") and ["float32", "NCHW"]."""
    if isinstance(entry, (list, tuple)) and len(entry) == 2:
        return str(entry[0]), str(entry[1])
    return str(entry), ""
