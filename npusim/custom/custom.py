"""``mindspore.ops.Custom``: one class for every func_type; the work is done by the func_type's backend.

Per call: split the arguments into tensors and attributes, select the reg-info row, resolve output shapes/dtypes
(cached per signature), let the backend launch, wrap the outputs, and record a gradient node that calls ``bprop``.
"""
from __future__ import annotations

import numpy as np

from npusim.custom import outputs as out_spec
from npusim.custom.attrs import bind_attrs
from npusim.custom.backends import BACKENDS, backend_class
from npusim.custom.backends.base import OpDesc
from npusim.custom.reg_info import DYNAMIC, flatten_dynamic_inputs, normalise_reg_info, param_type
from npusim.custom.selection import select_row
from npusim.errors import GradientError, OpTypeError, OpValueError, TooManyInputsError
from npusim.frontend import autodiff, bprop_check, context
from npusim.frontend import dtype as mstype
from npusim.frontend.primitive import Primitive
from npusim.frontend.tensor import Tensor
from npusim.sim.runtime import current_runtime
from npusim.util.cache import BoundedCache

FUNC_TYPES = ("hybrid", "akg", "tbe", "aicpu", "aot", "pyfunc", "julia")
_TARGET_OF_FUNC_TYPE = {"tbe": "Ascend", "aicpu": "Ascend", "pyfunc": "CPU"}
PLAN_ENTRIES = 256  # call signatures whose resolved outputs and attributes one op keeps


def _default_func_type(func) -> str:
    # MindSpore 1.7–2.6 default to "hybrid" (a @kernel function); the newest default to "pyfunc".  Accept both.
    return "hybrid" if getattr(func, "_npusim_kernel", False) else "pyfunc"


def _func_name(func) -> str:
    if isinstance(func, str):
        return func
    return getattr(func, "__name__", type(func).__name__)


def _pick_reg_info(infos: list[dict], func_type: str) -> dict | None:
    if not infos:
        return None
    wanted = {context.get_device_target(), _TARGET_OF_FUNC_TYPE.get(func_type)}
    for info in infos:
        if info.get("target") in wanted:
            return info
    return infos[0]


class _Plan:
    """What one call signature resolved to: output shapes/dtypes and the bound attributes."""

    __slots__ = ("out_shapes", "out_dtypes", "attrs", "multi")

    def __init__(self, out_shapes, out_dtypes, attrs, multi):
        self.out_shapes, self.out_dtypes, self.attrs, self.multi = out_shapes, out_dtypes, attrs, multi


class Custom(Primitive):
    """``Custom(func, out_shape=None, out_dtype=None, func_type="hybrid", bprop=None, reg_info=None)``."""

    def __init__(self, func, out_shape=None, out_dtype=None, func_type=None, bprop=None, reg_info=None):
        super().__init__("Custom")
        func_type = _default_func_type(func) if func_type is None else func_type
        if func_type not in FUNC_TYPES:
            raise OpValueError(f"For 'Custom', 'func_type' must be one of {list(FUNC_TYPES)}, "
                               f"but got {func_type!r}.")
        out_spec.check_kinds(out_shape, out_dtype)
        if bprop is not None and not callable(bprop):
            raise OpTypeError(f"For 'Custom', 'bprop' must be a function, but got {type(bprop).__name__}")
        self.func, self.func_type, self.bprop = func, func_type, bprop
        self.out_shape, self.out_dtype = out_shape, out_dtype
        infos = normalise_reg_info(reg_info if reg_info is not None else getattr(func, "reg_info", None))
        self.reg_info = _pick_reg_info(infos, func_type)
        self.op_name = _func_name(func)
        context.effective_target()  # warns once when GPU is asked for without CUDA
        desc = OpDesc(func=func, name=self.op_name, reg_info=self.reg_info,
                      device_target=context.get_device_target(), func_type=func_type)
        self.backend = backend_class(func_type)(desc, runtime=current_runtime())
        if self.bprop is None and hasattr(self.backend, "automatic_bprop"):
            # hybrid/akg ops without bprop: MindSpore's _hybrid_autodiff gives them a derived backward (issue 11)
            self.bprop = self.backend.automatic_bprop()
        self._needs_runtime = self.backend.needs_runtime
        # optional backend hooks (aclnn operators on Ascend, backends/aot_aclnn.py): no dtype_format selection,
        # its own layout of the out_shape/out_dtype function arguments, and a look at the op (attrs, out specs)
        self._selects_rows = getattr(self.backend, "selects_rows", True)
        self._spec_args = getattr(self.backend, "out_spec_args", None)
        if hasattr(self.backend, "attach"):
            self.backend.attach(self)
        self._n_inputs = len(self.reg_info["inputs"]) if self.reg_info and self.reg_info.get("inputs") else None
        self._plans = BoundedCache(f"custom.plans[{self.op_name}]", PLAN_ENTRIES)
        self._own_fields = frozenset(self.__dict__) | {"_own_fields"}  # add_prim_attr never overwrites these

    # ---- attributes ---------------------------------------------------------------------------------------------
    def add_prim_attr(self, name, value):
        """Set attribute ``name`` (MindSpore's way to give a reg-info attribute a value without passing it at every
        call); the next call binds it."""
        super().add_prim_attr(name, value)
        plans = self.__dict__.get("_plans")
        if plans is not None:
            plans.clear()  # plans hold bound attribute values
        return self

    def _mirrors(self, name) -> bool:
        own = self.__dict__.get("_own_fields")
        return super()._mirrors(name) and name not in (self.__dict__ if own is None else own)

    # ---- call ---------------------------------------------------------------------------------------------------
    def _split(self, args):
        n = self._n_inputs
        if n is None:
            n = 0
            while n < len(args) and isinstance(args[n], (Tensor, np.ndarray)):
                n += 1
        if len(args) < n:
            raise OpValueError(f"Custom op '{self.op_name}' takes {n} tensor inputs, but got {len(args)} arguments")
        return args[:n], args[n:]

    def _check_extra_tensors(self, attr_args) -> None:
        """A Tensor where an attribute belongs (an array, when the reg info declares no attributes) is one tensor
        input more than the reg info declares."""
        has_attrs = bool(self.reg_info.get("attr"))
        for position, value in enumerate(attr_args):
            if isinstance(value, Tensor) or (not has_attrs and isinstance(value, np.ndarray)):
                names = ", ".join(str(e.get("name", i)) for i, e in enumerate(self.reg_info["inputs"]))
                raise TooManyInputsError(
                    f"For 'Custom' op '{self.op_name}', the registration info declares {self._n_inputs} tensor "
                    f"input(s) ({names}), but argument {self._n_inputs + position} of the call is a tensor too: "
                    f"declare every tensor input with .input(index, name) (a list of tensors: one 'dynamic' "
                    f"input), or pass attributes as Python values")

    def _plan(self, arrays, attr_args):
        if self._n_inputs is not None and attr_args:
            self._check_extra_tensors(attr_args)
        in_dtypes = [str(a.dtype) for a in arrays]
        row = select_row(self.op_name, self.func_type, self.reg_info, in_dtypes) if self._selects_rows else None
        attrs = bind_attrs(self.op_name, self.reg_info, tuple(attr_args), self.func_type, self.attrs,
                           self._n_inputs if self._n_inputs is not None else len(arrays))
        shape_args, dtype_args = [list(a.shape) for a in arrays], [mstype.to_type(a.dtype) for a in arrays]
        spec_attrs = attr_args
        if self._spec_args is not None:
            shape_args, dtype_args, spec_attrs = self._spec_args(shape_args, dtype_args, attr_args)
        shapes, dtypes = out_spec.resolve(self.op_name, self.out_shape, self.out_dtype, shape_args, dtype_args,
                                          spec_attrs)
        if row is not None and dtypes is not None:  # rows may differ only in their outputs (MatMul's fp16 / fp32)
            row = select_row(self.op_name, self.func_type, self.reg_info, in_dtypes, list(dtypes))
        if dtypes is None and row is not None and len(row) > len(arrays) and all(c[0] for c in row[len(arrays):]):
            dtypes = [c[0] for c in row[len(arrays):]]
        if shapes is None or dtypes is None:
            inferred_shapes, inferred_dtypes = self.backend.infer([a.shape for a in arrays], in_dtypes, attrs)
            shapes = shapes if shapes is not None else [tuple(s) for s in inferred_shapes]
            dtypes = dtypes if dtypes is not None else list(inferred_dtypes)
        out_spec.check_sizes(self.op_name, shapes, dtypes)
        multi = len(dtypes) != 1 or isinstance(self.out_dtype, (tuple, list)) or (
            callable(self.out_dtype) and len(shapes) != 1)
        return _Plan(shapes, dtypes, attrs, multi)

    def _given_inputs(self, args) -> int:
        """How many leading call arguments are tensor inputs: the reg info's count, fewer when trailing optional
        inputs are left out (MatMul's bias): from the first non-tensor on, the arguments are attributes."""
        entries = self.reg_info["inputs"]
        for index in range(min(self._n_inputs, len(args))):
            value = args[index]
            if isinstance(value, (Tensor, np.ndarray)) or (
                    isinstance(value, (list, tuple)) and param_type(entries[index]) == DYNAMIC):
                continue
            return index if all(param_type(e) == "optional" for e in entries[index:]) else self._n_inputs
        given = min(self._n_inputs, len(args))
        return given if all(param_type(e) == "optional" for e in entries[given:]) else self._n_inputs

    def __call__(self, *args):
        n = self._given_inputs(args) if self._n_inputs is not None else None
        tensors, attr_args = (args[:n], args[n:]) if n is not None and len(args) >= n else self._split(args)
        # a reg-info "dynamic" input takes a list/tuple of tensors (MindSpore: op([x1, x2], bias)); the backends get
        # one array per tensor and regroup them from the reg info (npusim.custom.reg_info.group_sizes)
        flat = flatten_dynamic_inputs(self.reg_info, tensors) if self.reg_info else tensors
        arrays = [t._data if type(t) is Tensor or isinstance(t, Tensor) else np.asarray(t) for t in flat]
        signature = tuple([(a.shape, a.dtype) for a in arrays])
        try:
            # the types too: True, 1 and 1.0 are equal keys in Python but bind to attributes differently
            key = (signature, attr_args, tuple(map(type, attr_args))) if attr_args else signature
            plan = self._plans.get(key)
        except TypeError:  # unhashable attribute values: resolve every time
            key, plan = None, None
        if plan is None:
            plan = self._plan(arrays, attr_args)
            if key is not None:
                self._plans.put(key, plan)
        runtime = current_runtime() if self._needs_runtime else None   # the API edge: resolved once per call
        results = self.backend.launch(arrays, plan.attrs, plan.out_shapes, plan.out_dtypes, runtime)
        outs = [Tensor._wrap(r) for r in results]
        if outs and autodiff.recording():
            # a dynamic input (a list of tensors) is tracked tensor by tensor
            autodiff.record(self.op_name, _spliced(tensors, tensors) + tuple(attr_args), outs,
                            self._backward_rule(tensors, attr_args, outs, plan.multi))
        if not outs:
            return None
        return tuple(outs) if plan.multi else outs[0]

    # ---- gradient -----------------------------------------------------------------------------------------------
    def _backward_rule(self, tensors, attr_args, outs, multi):
        def rule(douts):
            if self.bprop is None:
                raise GradientError(
                    f"Custom op '{self.op_name}' (func_type={self.func_type!r}) is on the gradient path but has "
                    f"no bprop: pass bprop=... to ops.Custom to differentiate through it")
            out = tuple(outs) if multi else outs[0]
            dout = tuple(douts) if multi else douts[0]
            grads = self.bprop(*tensors, *attr_args, out, dout)
            grads = grads if isinstance(grads, (tuple, list)) else (grads,)
            grads = self._checked_grads(tensors, attr_args, grads)
            return list(_spliced(tensors, grads[:len(tensors)])) + grads[len(tensors):]
        return rule

    def _checked_grads(self, tensors, attr_args, grads) -> list:
        """The bprop's gradients as Tensors, checked as MindSpore's check_bprop checks them: one per input
        (npusim accepts leaving out trailing attribute arguments' gradients) and each of its input's shape (dtype
        too under ``set_context(check_bprop=True)``)."""
        tips = f"user defined method 'bprop' of Custom op '{self.op_name}'"
        bprop_check.check_count(tips, len(grads), len(tensors) + len(attr_args), len(tensors))
        grads = [_as_gradient(g, arg) for g, arg in zip(grads, tuple(tensors) + tuple(attr_args))]
        bprop_check.check_grads(tips, tensors, grads[:len(tensors)], context.flag("check_bprop"))
        return grads

    def __repr__(self):
        return f"Custom[{self.func_type}:{self.op_name}]"


def _spliced(tensors, values) -> tuple:
    """``values`` (one per tensor argument) with the entry of each list/tuple argument (a dynamic input) spliced
    in element by element; a missing gradient of such an argument becomes one None per element."""
    flat = []
    for arg, value in zip(tensors, values):
        if isinstance(arg, (list, tuple)):
            flat.extend(value if isinstance(value, (list, tuple)) else [None] * len(arg))
        else:
            flat.append(value)
    return tuple(flat)


def _as_gradient(grad, arg):
    """A bprop's gradient as a Tensor (None stays None; the gradient of a list input — a dynamic input — stays a
    list)."""
    if grad is None or isinstance(grad, Tensor):
        return grad
    if isinstance(arg, (list, tuple)) and isinstance(grad, (list, tuple)):
        return grad
    return Tensor._wrap(np.asarray(grad))


def registered_func_types():
    return tuple(BACKENDS)
