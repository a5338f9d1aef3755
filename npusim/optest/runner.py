"""Running op test cases on the simulator: one :class:`CaseResult` per (case, chip).

Per case: the inputs are drawn (:mod:`npusim.optest.datagen`), the implementation is found
(:mod:`npusim.optest.impls`) and launched through the backend ``ops.Custom`` uses for its kind —
:class:`~npusim.custom.backends.tbe.TbeBackend` (TBE DSL and TIK op files: built once per signature and chip, kept
in the runtime's and the disk's kernel caches) or :class:`~npusim.custom.backends.aicpu.AicpuBackend` (the AICPU
worker) — inside ``npusim.sim.profile()`` for the cycles and the busiest pipe; the golden comes from the case's
``calc_expect_func_file`` (called as msopst calls it: each named input as ``{"value", "dtype", "shape",
"format"}``, each named output as ``{"dtype", "shape", "format"}``, each attribute's value, by name; unnamed tensors
go positionally, inputs then outputs) and every output is judged by :func:`npusim.optest.criteria.compare_output`.

A case's status is PASS, FAIL (an output outside the criteria) or ERROR (the build, the run or the golden raised);
with ``"expect": "failed"`` a case is as expected when it does not pass.  A case without a golden function only has
to run (msopst's run-only case).
"""
from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

import numpy as np

from npusim.errors import ExpectFuncError
from npusim.optest.criteria import Comparison, Tolerances, compare_output
from npusim.optest.datagen import generate_inputs
from npusim.optest.impls import ImplFinder, compat_active

#: msopst attr types → the reg-info types npusim's AICPU backend encodes
AICPU_ATTR_TYPES = {"bool": "bool", "int": "int", "float": "float", "string": "str", "list_bool": "listBool",
                    "list_int": "listInt", "list_float": "listFloat", "list_string": "listStr",
                    "list_list_int": "listListInt", "data_type": "str"}


@dataclass(frozen=True)
class RunOptions:
    """How to run cases: chips (None: the current chip), the data seed, the user's criteria, the impl dirs."""

    socs: tuple = (None,)
    seed: int = 0
    tolerances: Tolerances = field(default_factory=Tolerances)
    impl_dirs: tuple = ()

    def key(self) -> str:
        return repr((self.seed, self.tolerances, self.impl_dirs))


@dataclass(frozen=True)
class CaseResult:
    """The outcome of one case on one chip."""

    case: str
    op: str
    soc: str
    signature: str
    kind: str
    status: str                  # PASS, FAIL or ERROR
    expect: str
    comparisons: tuple = ()
    cycles: Optional[float] = None
    busiest_pipe: Optional[str] = None
    kernels: int = 0
    message: str = ""
    source: str = ""
    index: int = 0

    @property
    def ok(self) -> bool:
        """Whether the case did what the case file expects (``expect``)."""
        return (self.status == "PASS") == (self.expect == "success")

    def metrics(self) -> str:
        """The worst output's error metrics: ``err 0.05% max_rel 1.2e-03 max_abs 3.1e-04``."""
        if not self.comparisons:
            return ""
        worst = max(self.comparisons, key=lambda c: (not c.passed, c.error_ratio, c.max_rel_error))
        return (f"err {100 * worst.error_ratio:.3g}% max_rel {worst.max_rel_error:.3g} "
                f"max_abs {worst.max_abs_error:.3g}")

    def describe(self) -> str:
        """A few lines for a failed case: verdict, criteria, metrics and why."""
        lines = [f"{self.case} [{self.op} on {self.soc}, {self.signature}]: {self.status} (expected {self.expect})"]
        for index, comp in enumerate(self.comparisons):
            lines.append(f"  output {index}: {'pass' if comp.passed else 'FAIL'} ({comp.criterion}): "
                         f"{comp.error_count}/{comp.elements} elements off, max_rel {comp.max_rel_error:.4g}, "
                         f"max_abs {comp.max_abs_error:.4g}" + (f"; {comp.message}" if comp.message else ""))
        if self.message:
            lines.append(f"  {self.message}")
        return "\n".join(lines)

    def to_json(self) -> dict:
        return {"case": self.case, "op": self.op, "soc": self.soc, "signature": self.signature, "kind": self.kind,
                "status": self.status, "expect": self.expect, "ok": self.ok, "cycles": self.cycles,
                "busiest_pipe": self.busiest_pipe, "kernels": self.kernels, "message": self.message,
                "outputs": [c.to_json() for c in self.comparisons], "source": self.source, "index": self.index}


class OpTestSession:
    """Runs cases; holds what one run reuses (implementations found, backends with their source digests, golden
    modules).  Kernels are cached by the runtime (memory) and on disk, so a second session builds nothing."""

    def __init__(self, options: Optional[RunOptions] = None, runtime=None):
        from npusim.sim.runtime import current_runtime
        self.options = options or RunOptions()
        self.runtime = runtime or current_runtime()
        self.finder = ImplFinder(self.runtime, self.options.impl_dirs)
        self._backends: dict = {}
        self._goldens: dict = {}

    def run(self, cases, progress: Optional[Callable] = None) -> list:
        """Every case on every chip of the options (chip-major order); ``progress(done, total, result)`` after
        each."""
        jobs = [(case, soc) for soc in self.options.socs for case in cases]
        results = []
        for case, soc in jobs:
            results.append(self.run_case(case, soc))
            if progress is not None:
                progress(len(results), len(jobs), results[-1])
        return results

    def run_case(self, case, soc: Optional[str] = None) -> CaseResult:
        """One case on chip ``soc`` (None: the session runtime's chip)."""
        runtime = self._runtime_for(soc)
        base = dict(case=case.name, op=case.op, soc=runtime.target.chip.name, signature=case.signature(),
                    expect=case.expect, source=case.source, index=case.index)
        kind = "-"
        try:
            with compat_active():
                resolved = self.finder.resolve(case)
                kind = resolved.kind
                inputs = generate_inputs(case, self.options.seed)
                outputs, rows = self._launch(resolved, case, inputs, runtime)
            comparisons = self._judge(case, inputs, outputs)
        except Exception as exc:  # the user's op, kernel or golden failed: the case's ERROR, named in the report
            return CaseResult(kind=kind, status="ERROR", message=f"{type(exc).__name__}: {exc}", **base)
        status = "PASS" if all(c.passed for c in comparisons) else "FAIL"
        cycles = sum(r["cycles"] for r in rows) if rows else None
        pipe = max(rows, key=lambda r: r["cycles"])["busiest_pipe"] if rows else None
        return CaseResult(kind=kind, status=status, comparisons=tuple(comparisons), cycles=cycles,
                          busiest_pipe=pipe, kernels=len(rows), **base)

    # ---- running -----------------------------------------------------------------------------------------------
    def _runtime_for(self, soc):
        if soc is None:
            return self.runtime
        from npusim.sim.runtime import resolve_target
        return self.runtime.with_target(resolve_target(soc))

    def _launch(self, resolved, case, inputs, runtime):
        from npusim.custom.backends.base import CallAttrs
        from npusim.sim.profiler import profile
        attrs = CallAttrs(tuple(a.name for a in case.attrs), tuple(a.value for a in case.attrs))
        backend = self._backend(resolved, case)
        if hasattr(backend, "stated_layouts"):     # TBE / TIK impls see the case's formats, as msopst passes them
            backend.stated_layouts = case_layouts(case)
        shapes = [tuple(t.shape) for t in case.outputs]
        dtypes = [t.dtype for t in case.outputs]
        with profile(runtime) as session:
            outputs = backend.launch(list(inputs), attrs, shapes, dtypes, runtime)
        return [np.asarray(o) for o in outputs], session.rows()

    def _backend(self, resolved, case):
        key = (resolved.kind, resolved.origin, resolved.op, tuple((a.name, a.type) for a in case.attrs))
        backend = self._backends.get(key)
        if backend is None:
            backend = self._backends[key] = _make_backend(resolved, case, self.runtime)
        return backend

    # ---- judging -----------------------------------------------------------------------------------------------
    def _judge(self, case, inputs, outputs) -> list:
        if case.expect_func is None:
            return []
        expected = self._golden(case, inputs)
        return [compare_output(actual, golden, desc.dtype, case.precision_standard, case.error_threshold,
                               self.options.tolerances)
                for actual, golden, desc in zip(outputs, expected, case.outputs)]

    def _golden(self, case, inputs) -> list:
        path, func_name = case.expect_func
        func = getattr(self._golden_module(path), func_name, None)
        if not callable(func):
            raise ExpectFuncError(f"case '{case.name}': {path} has no function '{func_name}' (calc_expect_func_file)")
        args, kwargs = golden_arguments(case, inputs)
        try:
            result = func(*args, **kwargs)
        except Exception as exc:  # the user's golden: any failure is reported as the case's error
            raise ExpectFuncError(f"case '{case.name}': {func_name}() in {path} raised {type(exc).__name__}: "
                                  f"{exc}") from exc
        return _golden_outputs(case, result, func_name)

    def _golden_module(self, path: str):
        module = self._goldens.get(path)
        if module is None:
            module = self._goldens[path] = load_golden_module(path)
        return module


def golden_arguments(case, inputs) -> tuple:
    """msopst's arguments of a golden function: (positional for unnamed tensors, keywords for named ones + attrs)."""
    args, kwargs = [], {}
    entries = [(desc, {"value": data, "dtype": desc.dtype, "shape": list(desc.shape), "format": desc.format})
               for desc, data in zip(case.inputs, inputs)]
    entries += [(desc, {"dtype": desc.dtype, "shape": list(desc.shape), "format": desc.format})
                for desc in case.outputs]
    for desc, entry in entries:
        if desc.name:
            kwargs[desc.name] = entry
        else:
            args.append(entry)
    kwargs.update((a.name, a.value) for a in case.attrs)
    return args, kwargs


def _golden_outputs(case, result, func_name: str) -> list:
    results = list(result) if isinstance(result, (list, tuple)) else [result]
    if len(results) != len(case.outputs):
        raise ExpectFuncError(f"case '{case.name}': {func_name}() returned {len(results)} output(s) but the case "
                              f"has {len(case.outputs)}")
    fitted = []
    for index, (value, desc) in enumerate(zip(results, case.outputs)):
        array = np.asarray(value)
        if array.size != int(np.prod(desc.shape)):
            raise ExpectFuncError(f"case '{case.name}': {func_name}() output {index} has {array.size} elements but "
                                  f"the output {desc.label()} has {int(np.prod(desc.shape))}")
        fitted.append(array.reshape(desc.shape).astype(desc.dtype))   # the output's dtype (msopst warns if not)
    return fitted


def load_golden_module(path: str):
    """The golden file as a module (its directory importable while it loads, as msopst puts it on sys.path)."""
    name = "npusim_optest_golden_" + hashlib.sha1(path.encode("utf-8")).hexdigest()[:16]
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ExpectFuncError(f"cannot load the golden file {path}")
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(Path(path).parent))
    try:
        spec.loader.exec_module(module)
    except Exception as exc:  # the user's file: any failure is the case's error
        raise ExpectFuncError(f"the golden file {path} raised {type(exc).__name__} on import: {exc}") from exc
    finally:
        with contextlib.suppress(ValueError):
            sys.path.remove(str(Path(path).parent))
    return module


@dataclass(frozen=True)
class StatedLayout:
    """A tensor's format as an op test case states it: the data already have ``format`` and ``shape``
    (``given``: no TransData around the kernel); the impl's dict shows the four fields."""

    format: str
    shape: tuple
    ori_shape: tuple
    ori_format: str
    given: bool = True


def _stated(desc) -> StatedLayout:
    shape = tuple(int(d) for d in desc.shape)
    ori_shape = tuple(int(d) for d in desc.ori_shape) if desc.ori_shape else shape
    return StatedLayout(desc.format or "ND", shape, ori_shape, desc.ori_format or desc.format or "ND")


def case_layouts(case) -> tuple:
    """(inputs, outputs) :class:`StatedLayout` of a case's tensors, for the TBE backend's impl dicts."""
    return [_stated(t) for t in case.inputs], [_stated(t) for t in case.outputs]


def _make_backend(resolved, case, runtime):
    from npusim.custom.backends.base import OpDesc
    if resolved.kind == "aicpu":
        from npusim.optest.aicpu_op import LibraryAicpuBackend
        reg = {"op_name": case.op, "inputs": [{"index": i, "name": t.name or f"x{i}"} for i, t in
                                              enumerate(case.inputs)],
               "outputs": [{"index": i, "name": t.name or f"y{i}"} for i, t in enumerate(case.outputs)],
               "attr": [{"name": a.name, "type": AICPU_ATTR_TYPES[a.type]} for a in case.attrs],
               "dtype_format": [], "target": "Ascend"}
        desc = OpDesc(func=None, name=case.op, reg_info=reg, device_target="Ascend", func_type="aicpu")
        return LibraryAicpuBackend(desc, resolved.library, runtime)
    from npusim.custom.backends.tbe import TbeBackend
    desc = OpDesc(func=resolved.func, name=case.op, reg_info=None, device_target="Ascend", func_type="tbe")
    return TbeBackend(desc, runtime)


def session_for(options: RunOptions, runtime=None) -> OpTestSession:
    """The process's session for ``options`` (a runtime resource: one per worker process, reused by every task
    it runs, so implementations, backends and kernels are found and built once per process)."""
    from npusim.sim.runtime import current_runtime
    runtime = runtime or current_runtime()
    return runtime.resource(f"optest.session[{options.key()}]", lambda: OpTestSession(options, runtime))


__all__ = ["AICPU_ATTR_TYPES", "CaseResult", "Comparison", "OpTestSession", "RunOptions", "golden_arguments",
           "load_golden_module", "session_for"]
