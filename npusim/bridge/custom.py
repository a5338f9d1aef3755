"""``mindspore.ops.Custom`` under the bridge: func_type tbe / aicpu (and akg / hybrid when the script asked for
device_target "Ascend") run on npusim's simulator inside the MindSpore graph; every other op is real MindSpore's.

A simulated op *is* a real MindSpore ``Custom`` op of func_type "pyfunc" (this class subclasses it), whose
function has the exact arity of the call (:mod:`npusim.bridge.arity`) and hands the values MindSpore gives it to
the op's :class:`~npusim.bridge.launcher.Launcher`.  So it runs wherever a pyfunc runs: PYNATIVE, GRAPH, ``ms.jit``,
under ``ms.grad`` / ``GradOperation`` with the user's bprop (padded to one gradient per argument), inside
``TrainOneStepCell``.  In PYNATIVE with no gradient being recorded (``_pynative_executor.requires_grad()`` false)
the call skips MindSpore's dispatch and launches directly (about 25x less overhead per call).

An op whose reg info declares str or list attributes is returned wrapped in a Cell (:class:`AttrCell`) whose
construct turns those arguments into interned ids at compile time (``ops.constexpr``): a pyfunc kernel carries
only tensors and numeric scalars.
"""
from __future__ import annotations

import inspect

from mindspore import Tensor, nn
from mindspore.graph.api import _pynative_executor
from mindspore.graph.jit_context import jit_context
from mindspore.ops import constexpr
from mindspore.ops.operations.custom_ops import Custom as RealCustom

from npusim.bridge import context as bridge_context
from npusim.bridge import dtypes
from npusim.bridge.arity import exact_arity, padded_bprop
from npusim.bridge.interning import AttrTable
from npusim.bridge.launcher import Launcher
from npusim.custom.attrs import fixed_value
from npusim.custom.reg_info import normalise_reg_info
from npusim.errors import BridgeAttributeError, BridgeUnsupportedError
from npusim.sim.runtime import current_runtime

#: func_types always run on the simulator; and those run there when the script asked for "Ascend"
SIMULATED = frozenset({"tbe", "aicpu"})
SIMULATED_ON_ASCEND = frozenset({"akg", "hybrid"})


def simulates(func_type, requested_target: str) -> bool:
    """Whether a Custom op of ``func_type`` runs on npusim's simulator (else real MindSpore runs it)."""
    return func_type in SIMULATED or (func_type in SIMULATED_ON_ASCEND and requested_target == "Ascend")


def _reg_info(func, reg_info) -> dict | None:
    infos = normalise_reg_info(reg_info if reg_info is not None else getattr(func, "reg_info", None))
    for info in infos:
        if info.get("target") == "Ascend" or str(info.get("imply_type", "")).upper() in ("TBE", "AICPU"):
            return info
    return infos[0] if infos else None


def _interned_attrs(reg: dict | None) -> bool:
    """Whether the reg info declares str or list attributes (the op then needs :class:`AttrCell` in graphs)."""
    return any(str(entry.get("type", "")).startswith(("str", "list")) for entry in (reg or {}).get("attr") or [])


def _call_arity(func_type: str, reg: dict | None, out_shape, out_dtype) -> int | None:
    """How many arguments a call passes: the out_shape / out_dtype function's parameter count (MindSpore calls it
    with one value per argument), else the reg info's inputs plus the attributes taking a call argument."""
    for spec in (out_shape, out_dtype):
        if callable(spec):
            try:
                params = inspect.signature(spec).parameters.values()
            except (TypeError, ValueError):
                continue
            if all(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params):
                return len(params)
    if reg is None:
        return None
    attrs = [entry for entry in reg.get("attr") or [] if fixed_value(entry, func_type) is None]
    return len(reg.get("inputs") or []) + len(attrs)


def _name(func) -> str:
    return func if isinstance(func, str) else getattr(func, "__name__", type(func).__name__)


class Custom(RealCustom):
    """MindSpore's ``Custom(func, out_shape=None, out_dtype=None, func_type="pyfunc", bprop=None, reg_info=None)``
    with Ascend func_types simulated (see the module docstring)."""

    def __new__(cls, func, out_shape=None, out_dtype=None, func_type="pyfunc", bprop=None, reg_info=None,
                _arity=None):
        op = super().__new__(cls)
        if _arity is None and simulates(func_type, bridge_context.requested_target()) \
                and _interned_attrs(_reg_info(func, reg_info)):
            op.__init__(func, out_shape, out_dtype, func_type, bprop, reg_info)
            return AttrCell(op)
        return op

    def __init__(self, func, out_shape=None, out_dtype=None, func_type="pyfunc", bprop=None, reg_info=None,
                 _arity=None):
        if "_sim" in self.__dict__:   # built by __new__ (an AttrCell's op): Python calls __init__ only then
            return
        if not simulates(func_type, bridge_context.requested_target()):
            self._sim = None
            super().__init__(func, out_shape, out_dtype, func_type, bprop, reg_info)
            return
        reg = _reg_info(func, reg_info)
        name = _name(func)
        table = AttrTable(name)
        launcher = Launcher(func, func_type, name, reg, out_shape, out_dtype, current_runtime(), table)
        arity = _arity if _arity is not None else _call_arity(func_type, reg, out_shape, out_dtype)
        if arity is None:
            raise BridgeUnsupportedError(
                f"Custom op '{name}' (func_type={func_type!r}): with real MindSpore the bridge must know how many "
                f"arguments a call passes: give a reg info (inputs and attrs) or out_shape/out_dtype functions with "
                f"one parameter per argument")
        self._sim = _Simulated(func, func_type, out_shape, out_dtype, bprop, reg_info, launcher, table, arity)
        pyfunc = exact_arity(self._pyfunc_call, arity, name)
        super().__init__(pyfunc, out_shape, out_dtype, "pyfunc", padded_bprop(bprop, arity) if bprop else None, None)
        self.simulated_func_type = func_type

    # ---- calls ------------------------------------------------------------------------------------------------
    def _pyfunc_call(self, args):
        """MindSpore's pyfunc kernel calls this (any thread; the API edge: the current runtime)."""
        return self._sim.launcher.pyfunc_result(args, current_runtime())

    def __call__(self, *args):
        sim = self.__dict__.get("_sim")
        if sim is None or jit_context():
            return super().__call__(*(sim.table.encode(args) if sim is not None else args))
        if not _pynative_executor.requires_grad():
            values = tuple(_array(a, sim.launcher.name, i) if isinstance(a, Tensor) else a for i, a in enumerate(args))
            outs, multi = sim.launcher.run(values, current_runtime())
            tensors = tuple(Tensor(o) for o in outs)
            return tensors if multi else tensors[0]
        op = self if len(args) == sim.arity else sim.op_of_arity(len(args))
        return RealCustom.__call__(op, *sim.table.encode(args))

    def __infer__(self, *args):
        sim = self.__dict__.get("_sim")
        if sim is not None:
            sim.check_infer_args(args)
        out = super().__infer__(*args)
        if sim is not None:
            sim.check_infer_shape(out.get("shape"))
        return out

    def __repr__(self):
        sim = self.__dict__.get("_sim")
        if sim is None:
            return super().__repr__()
        return f"Custom[{sim.func_type}:{sim.launcher.name} simulated by npusim]"


def _array(tensor, name: str, index: int):
    """A tensor argument's data for the fast path (bfloat16 refused: numpy has no such dtype)."""
    if dtypes.is_refused_input(tensor.dtype):
        raise BridgeUnsupportedError(f"Custom op '{name}': argument {index} is bfloat16, which cannot cross "
                                     f"MindSpore's pyfunc kernel (numpy has no bfloat16); cast it to float16/float32 "
                                     f"before the op")
    return tensor.asnumpy()


class _Simulated:
    """What a simulated op keeps: how it was built (to build its variants of another arity), its launcher, its
    interned attributes and the arity its pyfunc was built with."""

    def __init__(self, func, func_type, out_shape, out_dtype, bprop, reg_info, launcher, table, arity):
        self.func, self.func_type, self.out_shape, self.out_dtype = func, func_type, out_shape, out_dtype
        self.bprop, self.reg_info, self.launcher, self.table, self.arity = bprop, reg_info, launcher, table, arity
        self._variants: dict = {}

    def op_of_arity(self, arity: int) -> Custom:
        """The same op built for calls of ``arity`` arguments (a call leaving out trailing optional attributes)."""
        op = self._variants.get(arity)
        if op is None:
            op = Custom(self.func, self.out_shape, self.out_dtype, self.func_type, self.bprop, self.reg_info,
                        _arity=arity)
            op._sim.launcher, op._sim.table = self.launcher, self.table   # one backend and one table per op
            self._variants[arity] = op
        return op

    def check_infer_shape(self, shape) -> None:
        """A data-dependent output shape (a -1 / -2 dim) cannot be: MindSpore allocates a pyfunc's outputs first."""
        shapes = shape if shape and isinstance(shape[0], (tuple, list)) else [shape or ()]
        for index, one in enumerate(shapes):
            if any(isinstance(d, int) and d < 0 for d in one):
                raise BridgeUnsupportedError(
                    f"Custom op '{self.launcher.name}': output {index} has the data-dependent shape {list(one)}; "
                    f"MindSpore's pyfunc kernel allocates outputs from the inferred shape before the op runs, so "
                    f"with real MindSpore every output dim must be known from the input shapes")

    def check_infer_args(self, args) -> None:
        """Refuse, with the reason, what MindSpore would fail on obscurely further down."""
        name = self.launcher.name
        if len(args) != self.arity:
            raise BridgeAttributeError(
                f"Custom op '{name}' was built for calls of {self.arity} arguments (from its out_shape/out_dtype "
                f"function or reg info), but a compiled graph calls it with {len(args)}: in GRAPH mode / ms.jit pass "
                f"every attribute the out_shape function names")
        for index, arg in enumerate(args):
            dtype = arg.get("dtype") if isinstance(arg, dict) else None
            if dtypes.is_interned_kind(dtype):
                raise BridgeAttributeError(
                    f"Custom op '{name}': argument {index} is a {dtype} (a str/tuple attribute) inside a compiled "
                    f"graph, which MindSpore's pyfunc kernel cannot carry; declare it in the op's reg info "
                    f"(.attr(name, 'required', 'str' / 'listInt' ...)) so the bridge interns it, or pass it as a "
                    f"tensor")
            if dtypes.is_refused_input(dtype):
                raise BridgeUnsupportedError(
                    f"Custom op '{name}': argument {index} is bfloat16, which cannot cross MindSpore's pyfunc kernel "
                    f"(numpy has no bfloat16); cast it to float16/float32 before the op")


class AttrCell(nn.Cell):
    """A simulated op whose str / list attributes become interned ids before they reach the pyfunc kernel (at
    compile time in a graph: ``ops.constexpr``).  Calls and attributes other than Cell's go to the op."""

    def __init__(self, op: Custom):
        super().__init__()
        self.op = op
        self.intern = constexpr(op._sim.table.id_of)

    def construct(self, *args):
        encoded = ()
        for arg in args:
            if isinstance(arg, (str, tuple, list)):
                encoded = encoded + (self.intern(arg),)
            else:
                encoded = encoded + (arg,)
        return self.op(*encoded)

    def add_prim_attr(self, name, value):
        """Forwarded to the op (``op.add_prim_attr`` as on a MindSpore Custom)."""
        self.op.add_prim_attr(name, value)
        return self


__all__ = ["AttrCell", "Custom", "SIMULATED", "SIMULATED_ON_ASCEND", "simulates"]
