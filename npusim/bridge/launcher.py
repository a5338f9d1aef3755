"""One simulated Custom op's work inside MindSpore's pyfunc kernel: the call's values in, checked outputs out.

MindSpore's CPU pyfunc kernel calls the op's function with one value per call argument — numpy arrays for tensors,
Python scalars for scalar arguments (and for 0-d tensors) — and copies what it returns into output buffers it
allocated from the op's inferred shapes and dtypes, byte for byte, without checking (a short or mistyped result
leaves garbage).  The launcher therefore: looks interned str/tuple attributes up again, selects the reg-info row,
binds the attributes, replays the user's ``out_shape`` / ``out_dtype`` exactly as MindSpore's infer called them,
launches npusim's backend for the func_type (through the :class:`~npusim.custom.backends.base.Backend` contract)
and hands back arrays of exactly the inferred shapes and dtypes (cast where the kernel's dtype differs only in
width or is a byte for a declared bool), or raises :class:`~npusim.errors.BridgeOutputError`.
"""
from __future__ import annotations

import numbers
from math import prod

import numpy as np

from npusim.bridge import dtypes
from npusim.bridge.interning import AttrTable
from npusim.custom.attrs import bind_attrs
from npusim.custom.backends import backend_class
from npusim.custom.backends.base import OpDesc
from npusim.custom.outputs import check_sizes, split_shapes
from npusim.custom.selection import select_row
from npusim.errors import BridgeOutputError, BridgeUnsupportedError, OpValueError
from npusim.util.cache import BoundedCache

#: call signatures one op keeps resolved plans for
PLAN_ENTRIES = 256
#: 0-d tensors reach a pyfunc as Python scalars: the dtype they are given back when the reg info does not say
_SCALAR_DTYPES = ((bool, "bool"), (numbers.Integral, "int64"), (numbers.Real, "float32"))


class _Plan:
    __slots__ = ("attrs", "out_shapes", "out_dtypes", "multi")

    def __init__(self, attrs, out_shapes, out_dtypes, multi):
        self.attrs, self.out_shapes, self.out_dtypes, self.multi = attrs, out_shapes, out_dtypes, multi


class Launcher:
    """Runs one Custom op (func_type tbe / aicpu / akg / hybrid) on npusim's simulator for MindSpore."""

    def __init__(self, func, func_type: str, name: str, reg: dict | None, out_shape, out_dtype, runtime,
                 table: AttrTable):
        self.func_type, self.name, self.reg = func_type, name, reg
        self.out_shape, self.out_dtype, self.table = out_shape, out_dtype, table
        desc = OpDesc(func=func, name=name, reg_info=reg, device_target="Ascend", func_type=func_type)
        self.backend = backend_class(func_type)(desc, runtime=runtime)
        self.needs_runtime = self.backend.needs_runtime
        self.n_inputs = len(reg["inputs"]) if reg and reg.get("inputs") else None
        self._plans = BoundedCache(f"bridge.plans[{name}]", PLAN_ENTRIES)

    # ---- the call ---------------------------------------------------------------------------------------------
    def run(self, args: tuple, runtime) -> tuple:
        """The op's outputs for pyfunc arguments ``args``: (list of arrays, whether MindSpore expects a tuple)."""
        values = tuple(self.table.value_of(a) for a in args)
        n = self._n_tensors(values)
        arrays = [self._as_array(v, i) for i, v in enumerate(values[:n])]
        attr_args = values[n:]
        key = (tuple([(a.shape, a.dtype) for a in arrays]), repr(attr_args))
        plan = self._plans.get(key)
        if plan is None:
            plan = self._plans.put(key, self._plan(arrays, attr_args))
        results = self.backend.launch(arrays, plan.attrs, plan.out_shapes, plan.out_dtypes,
                                      runtime if self.needs_runtime else None)
        return self._checked(results, plan), plan.multi

    def pyfunc_result(self, args: tuple, runtime):
        """What the pyfunc returns to MindSpore: one array, or a tuple of arrays for a multi-output op."""
        outs, multi = self.run(args, runtime)
        return tuple(outs) if multi else outs[0]

    def _n_tensors(self, values) -> int:
        if self.n_inputs is not None:
            if len(values) < self.n_inputs:
                raise OpValueError(f"Custom op '{self.name}' takes {self.n_inputs} tensor inputs, but got "
                                   f"{len(values)} arguments")
            return self.n_inputs
        n = 0
        while n < len(values) and isinstance(values[n], np.ndarray):
            n += 1
        return n

    def _as_array(self, value, index: int) -> np.ndarray:
        """A tensor argument as an array (a 0-d tensor arrives as a Python scalar: its dtype from the reg info's
        column when that names one, else MindSpore's default for the scalar's kind)."""
        if isinstance(value, np.ndarray):
            return value
        column = {row[index][0] for row in (self.reg or {}).get("dtype_format") or [] if len(row) > index}
        column.discard("")
        if len(column) == 1:
            return np.asarray(value, dtype=column.pop())
        for kind, dtype in _SCALAR_DTYPES:
            if isinstance(value, kind):
                return np.asarray(value, dtype=dtype)
        return np.asarray(value)

    # ---- per signature ----------------------------------------------------------------------------------------
    def _plan(self, arrays, attr_args) -> _Plan:
        in_dtypes = [a.dtype.name for a in arrays]
        if (self.reg or {}).get("dtype_format"):
            select_row(self.name, self.func_type, self.reg, in_dtypes)   # KernelSelectionError listing the rows
        attrs = bind_attrs(self.name, self.reg, tuple(attr_args), self.func_type, None, len(arrays))
        shapes, out_dtypes, multi = self.replay(arrays, attr_args)
        dynamic = [i for i, shape in enumerate(shapes) if any(d < 0 for d in shape)]
        if dynamic:
            raise BridgeUnsupportedError(
                f"Custom op '{self.name}': output {dynamic[0]} has the data-dependent shape "
                f"{list(shapes[dynamic[0]])}; "
                f"MindSpore's pyfunc kernel allocates outputs from the inferred shape before the op runs, so with "
                f"real MindSpore every output dim must be known from the input shapes (give out_shape exact dims)")
        check_sizes(self.name, shapes, out_dtypes)
        return _Plan(attrs, shapes, out_dtypes, multi)

    def replay(self, arrays, attr_args) -> tuple:
        """The user's out_shape / out_dtype called as MindSpore's infer called them (a shape list and a MindSpore
        dtype per argument; a scalar argument's shape is []): (shapes, dtype names, multi)."""
        shape_args = [list(a.shape) for a in arrays] + [[] for _ in attr_args]
        type_args = [dtypes.ms_type(a) for a in arrays] + [dtypes.ms_type(v) for v in attr_args]
        if self.out_shape is None or self.out_dtype is None:
            raise BridgeUnsupportedError(
                f"Custom op '{self.name}' (func_type={self.func_type!r}): with real MindSpore, out_shape and out_dtype "
                f"must be given (MindSpore infers the outputs before the simulated kernel runs)")
        shape_value = self.out_shape(*shape_args) if callable(self.out_shape) else self.out_shape
        dtype_value = self.out_dtype(*type_args) if callable(self.out_dtype) else self.out_dtype
        shapes = split_shapes(self.name, shape_value)
        items = list(dtype_value) if isinstance(dtype_value, (tuple, list)) else [dtype_value]
        names = [dtypes.np_name(self.name, item, i) for i, item in enumerate(items)]
        if len(names) == 1 and len(shapes) > 1:
            names = names * len(shapes)
        if len(shapes) != len(names):
            raise OpValueError(f"For 'Custom' op '{self.name}', out_shape gives {len(shapes)} outputs but out_dtype "
                               f"gives {len(names)}")
        return shapes, names, isinstance(dtype_value, (tuple, list))

    # ---- outputs ----------------------------------------------------------------------------------------------
    def _checked(self, results, plan: _Plan) -> list:
        if len(results) != len(plan.out_shapes):
            raise BridgeOutputError(f"Custom op '{self.name}': the simulated kernel gave {len(results)} outputs, the "
                                    f"MindSpore graph expects {len(plan.out_shapes)} (out_shape/out_dtype)")
        return [self._fitted(np.asarray(r), shape, dtype, i)
                for i, (r, shape, dtype) in enumerate(zip(results, plan.out_shapes, plan.out_dtypes))]

    def _fitted(self, result: np.ndarray, shape, dtype: str, index: int) -> np.ndarray:
        if result.size != prod(shape):
            raise BridgeOutputError(
                f"Custom op '{self.name}': output {index} of the simulated kernel has {result.size} elements "
                f"(shape {list(result.shape)}), but MindSpore allocated {prod(shape)} (shape {list(shape)}, from "
                f"out_shape): fix out_shape, or the kernel")
        if result.dtype.name != dtype:
            want = np.dtype(dtype)
            if not (want == np.bool_ or np.can_cast(result.dtype, want, "same_kind")):
                raise BridgeOutputError(
                    f"Custom op '{self.name}': output {index} of the simulated kernel is {result.dtype.name}, but "
                    f"MindSpore expects {dtype} (from out_dtype): fix out_dtype, or the kernel")
            result = result.astype(want)
        return np.ascontiguousarray(result.reshape(shape))


__all__ = ["Launcher", "PLAN_ENTRIES"]
