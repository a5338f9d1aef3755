"""``ops.Custom(func_type="tbe")``: a TBE DSL impl function, built once per signature, run on the simulated device.

Per call signature the impl function is called as MindSpore's TBE compiler calls it::

    func(*input_dicts, *output_dicts, *attr_values, kernel_name=<name>)

Each dict has ``shape`` (list), ``dtype`` (lowercase name; bool travels as "int8", as MindSpore hands it to TBE),
``format`` "NCHW", ``ori_shape``, ``ori_format`` "NCHW" (what MindSpore's TBE json gives a DefaultFormat tensor).
When the selected dtype_format row (matched on input and output dtypes) declares another format (``F16_FracNZ``,
``F16_5HD``, ``F16_FracZ``), the dict has that format, the converted shape and the caller's ``ori_shape``, and the
tensors are converted around the kernel as MindSpore's TransData does, by trans_data kernels on the simulated device
(:mod:`te_compat.cube.trans_data`; shapes: :mod:`npusim.custom.backends.tbe_formats`).
A trailing optional input the call left out (MatMul's bias) arrives as None; an input smaller than its placeholder
(a (47,) bias the op reads as (48,)) is zero-filled to it.
A reg-info ``dynamic`` input or output arrives as a tuple of such dicts, one per tensor (the call passes a list of
tensors, ``op([x1, x2], bias)``), and an input declared ``value_depend`` carries ``const_value`` (see
:mod:`npusim.custom.backends.tbe_args`).  Attribute values come positionally in reg-info order.
``kernel_name`` is the function's name plus a hash of the signature (passed by keyword when the function has a
``kernel_name`` parameter or ``**kwargs``, else positionally if it takes one more argument, else not at all).
The backend never switches npusim's compatibility layer (``te``, ``tbe``, ``topi``, ``impl``, ``mindspore``) on or
off: the compat layer sits above Custom (layers import one way), and an impl's module-level ``from te import tvm``
already needed the layer before the op was built, so the build runs in whatever import state the user chose
(``npusim run``, ``import npusim.compat``, the pytest plugin).  An impl that imports one of those names inside the
function while the layer is off fails with a TbeBuildError saying how to switch it on.  The impl's
``cce_build_code`` writes into a private cache entry (``$NPUSIM_CACHE_DIR/tbe/<key>/kernel_meta``), never the
user's working directory; the kernel it lowered reaches the backend as an object (collected by
:func:`te_compat.build.collect_builds` around the impl call), so a fresh build is not read back from those files.

Built kernels are cached in memory and on disk by (function source, its module's source and the user modules it
reaches, default and closure values by content — see :mod:`npusim.custom.backends.tbe_key` —, input shapes and
dtypes, output shapes and dtypes, attributes, the whole target: chip, overflow mode, core limit); a relaunch only
runs the kernel.  The disk key also covers the compiler fingerprint: every source file of te_compat and npusim
(ISA semantics, rounding, chip YAMLs ...) and the Python/numpy/TVM versions (:mod:`te_compat.build.cache`), held
by the runtime.  A signature not in memory is looked up on disk first (what a new process finds).  Whatever
device_target says, the kernel runs on the simulated Ascend device (there is no other way to run TBE code), and
``npusim.sim.profile()`` records the launch.  The kernel's outputs are matched to the Custom outputs in order, by
element count (ops flatten or reshape inside) and dtype (int8/uint8 is accepted for a declared bool output; a
bool input reaches a bool, int8 or uint8 placeholder as the same bytes).  An output whose dtype differs from the
declared one because a DSL function auto-cast (int32 vadds computed in float32 on Ascend910 ...) is reported when
the kernel is built, naming the function, the instruction and the cast.
"""
from __future__ import annotations

import hashlib
import inspect
import re
from math import prod
from pathlib import Path

import numpy as np

from npusim.custom.backends.base import Backend, CallAttrs, OpDesc
from npusim.custom.backends.tbe_args import DEFAULT_FORMAT, const_signature, impl_arguments, tensor_dict  # noqa: F401
from npusim.custom.backends.tbe_formats import is_default, row_layouts
from npusim.custom.backends.tbe_key import ROOTS_RESOURCE, source_digest, system_roots
from npusim.errors import OpTypeError, TbeBuildError, TbeLaunchError

#: the runtime cache of built kernels (call signature key → te_compat.build.BuiltKernel) and its size
BUILT_CACHE, BUILT_ENTRIES = "tbe.built", 256
_BYTE_DTYPES = ("bool", "int8", "uint8")
_NAME_CHARS = re.compile(r"[^A-Za-z0-9_]")
_NAME_PREFIX_CHARS = 150


def clear_memory_cache(runtime=None) -> None:
    """Forget every kernel built in ``runtime``'s store (None: the current runtime's; the on-disk cache stays)."""
    from npusim.custom.backends.base import given_runtime
    given_runtime(runtime).cache(BUILT_CACHE, BUILT_ENTRIES).clear()


#: top-level names npusim's compatibility layer serves (named in the hint of a build that failed to import one)
_COMPAT_NAMES = ("mindspore", "te", "tbe", "topi", "impl")


def _impl_error_hint(exc: BaseException) -> str:
    """A hint for an impl that failed importing a compatibility-layer name (empty for any other failure)."""
    missing = getattr(exc, "name", None) if isinstance(exc, ModuleNotFoundError) else None
    if not missing or missing.partition(".")[0] not in _COMPAT_NAMES:
        return ""
    return (f" ('{missing.partition('.')[0]}' is served by npusim's compatibility layer: switch it on with "
            f"`import npusim.compat`, `npusim run SCRIPT` or pytest --npusim-compat)")


def _dtype_fits(kernel_dtype: str, declared: str) -> bool:
    """Whether a kernel output of ``kernel_dtype`` serves a declared ``declared`` output (int8/uint8 for bool)."""
    return kernel_dtype == declared or (declared == "bool" and kernel_dtype in _BYTE_DTYPES)


def _converts(layout) -> bool:
    """Whether a tensor's layout needs a TransData around the kernel (a dtype_format row's format; not a format
    the caller states its data already have)."""
    return layout is not None and not getattr(layout, "given", False)


def _given(layouts) -> bool:
    return any(getattr(lay, "given", False) for side in layouts for lay in side)


def _pick_json(directory: Path, kernel_name: str):
    """The kernel JSON of a build directory: ``<kernel_name>.json``, else the only one; None if none/ambiguous."""
    wanted = directory / f"{kernel_name}.json"
    if wanted.is_file():
        return wanted
    found = sorted(directory.glob("*.json")) if directory.is_dir() else []
    return found[0] if len(found) == 1 else None


class TbeBackend(Backend):
    """Backend of func_type "tbe" (see the module docstring)."""

    can_infer = False
    needs_runtime = True

    def __init__(self, desc: OpDesc, runtime=None):
        super().__init__(desc, runtime)
        if not callable(desc.func):
            raise OpTypeError(f"For 'Custom', the 'func' of func_type 'tbe' must be a function, but got "
                              f"{type(desc.func).__name__}")
        self.source_digest = source_digest(desc.func, self.runtime.resource(ROOTS_RESOURCE, system_roots))
        self.impl_calls = 0  # how many times the impl function ran (builds), for tests and diagnostics
        self.stated_layouts = None  # (inputs, outputs) layouts with ``given`` set, for the next calls (op tests)

    # ---- per call ----------------------------------------------------------------------------------------------
    def launch(self, inputs: list[np.ndarray], attrs: CallAttrs, out_shapes: list[tuple],
               out_dtypes: list[str], runtime=None) -> list[np.ndarray]:
        """Build (once per signature and target) and run the kernel on ``runtime``'s device; one array per Custom
        output."""
        runtime = runtime or self.runtime
        arrays = [np.asarray(a) for a in inputs]
        layouts = self._layouts(arrays, out_shapes, out_dtypes)
        arrays = [a.view(np.int8) if a.dtype == np.bool_ else a for a in arrays]
        # the whole target: its overflow mode too (constants fold with the chip's saturation), and the core limit;
        # the values of const (value_depend) inputs, which the impl reads
        key = (self.source_digest, tuple((a.shape, a.dtype.name) for a in arrays),
               tuple(tuple(int(d) for d in s) for s in out_shapes), tuple(out_dtypes), attrs.names,
               repr(attrs.values), runtime.target.key, const_signature(self.desc.reg_info, arrays, self.desc.name))
        if _given(layouts):     # formats a caller states (op test cases) are part of what the impl builds for
            key += (repr(layouts),)
        cache = runtime.cache(BUILT_CACHE, BUILT_ENTRIES)
        built = cache.get(key)
        if built is None:
            built = cache.put(key, self._obtain(key, arrays, attrs, out_shapes, out_dtypes, runtime, layouts))
        # MindSpore's TransData around the kernel (trans_data kernels on the device: they show in a profile):
        # inputs into the row's formats, outputs back to the caller's shapes
        from te_compat.cube.trans_data import run_trans_data
        # (a tensor of fewer dims than NC1HWC0 / FRACTAL_Z take is reshaped to its NCHW padding around them)
        kernel_inputs = [run_trans_data(a.reshape(lay.nchw), lay.format, True, lay.nchw, runtime)
                         if _converts(lay) else a for a, lay in zip(arrays, layouts[0])]
        results = built.run(*self._fit_inputs(built, kernel_inputs), runtime=runtime)
        results = [run_trans_data(r, lay.format, False, lay.nchw, runtime).reshape(lay.ori_shape)
                   if _converts(lay) else r for r, lay in zip(results, layouts[1])]
        return self._match_outputs(built, results, out_shapes, out_dtypes)

    def _layouts(self, arrays, out_shapes, out_dtypes) -> tuple:
        """(per input, per output) the non-default formats of the dtype_format row this call selects, or the
        layouts a caller states for this call (``stated_layouts``: op test cases, whose data already have the
        case's formats)."""
        if self.stated_layouts is not None:
            return self.stated_layouts
        reg = self.desc.reg_info
        rows = (reg or {}).get("dtype_format") or ()
        if all(is_default(col[1]) for row in rows for col in row):   # no row asks for a format: nothing to select
            return [None] * len(arrays), [None] * len(out_shapes)
        from npusim.custom.selection import select_row
        row = select_row(self.desc.name, "tbe", reg, [a.dtype.name for a in arrays], list(out_dtypes))
        kinds = tuple(tuple(str(e.get("reshape_type") or "") if isinstance(e, dict) else ""
                            for e in reg.get(side) or ()) for side in ("inputs", "outputs"))
        return row_layouts(row, arrays, out_shapes, out_dtypes, kinds)

    def kernel_name(self, digest: str) -> str:
        """A valid, unique kernel name: the function's name (sanitised) and the signature digest."""
        base = _NAME_CHARS.sub("_", self.desc.name)[:_NAME_PREFIX_CHARS] or "tbe_op"
        return f"{base}_{digest[:16]}"

    # ---- building ----------------------------------------------------------------------------------------------
    def _obtain(self, key, arrays, attrs: CallAttrs, out_shapes, out_dtypes, runtime, layouts=None):
        """The kernel of ``key``: from the disk cache when a previous build (any process) published it, else built
        by the impl into a new entry and handed over as the object the build lowered."""
        from te_compat.build import BuiltKernel, cache, load_built
        key_text = repr(key)
        digest = cache.key_digest(key_text, cache.compiler_fingerprint(runtime))
        # the name digests the build key alone (not npusim's own sources, which the cache entry's digest covers), so
        # a kernel keeps its name across npusim versions and machines
        kernel_name = self.kernel_name(hashlib.sha256(key_text.encode("utf-8")).hexdigest())
        found = _pick_json(cache.entry_meta_dir(digest), kernel_name)
        if found is not None:
            try:
                return load_built(found)
            except TbeLaunchError:
                pass  # a corrupt or stale disk entry: build it again below, which replaces it
        with cache.staging(digest) as stage_dir, runtime.activate():  # the impl's DSL calls build for its target
            result = self._build_into(stage_dir, kernel_name, arrays, attrs, out_shapes, out_dtypes, layouts)
        return BuiltKernel.from_result(result, cache.entry_meta_dir(digest))  # the files now sit in the entry

    def _build_into(self, stage_dir: Path, kernel_name: str, arrays, attrs: CallAttrs, out_shapes, out_dtypes,
                    layouts=None):
        """Call the impl with its kernel_meta redirected to ``stage_dir``; returns the BuildResult of the kernel it
        built (named ``kernel_name``, or the only one it built), collected as an object, not read back."""
        from te_compat.build import collect_builds, kernel_meta_override
        args = impl_arguments(self.desc.reg_info, self.desc.name, arrays, out_shapes, out_dtypes, attrs.values,
                              layouts)
        what = f"Custom op '{self.desc.name}' (func_type='tbe'), kernel '{kernel_name}'"
        with kernel_meta_override(stage_dir), collect_builds() as builds:
            try:
                self.impl_calls += 1
                self._call_impl(args, kernel_name)
            except Exception as exc:
                raise TbeBuildError(f"{what}: the impl function raised {type(exc).__name__}: {exc}"
                                    f"{_impl_error_hint(exc)}") from exc
        result = builds.pick(kernel_name, stage_dir)
        if result is None:
            built = builds.names(stage_dir)
            cause = (f"it built {len(built)} kernels ({', '.join(built)}) and none is named '{kernel_name}'"
                     if built else "it built nothing (it must call cce_build_code / tbe.dsl.build with "
                                   "config name=kernel_name)")
            raise TbeBuildError(f"{what}: {cause}")
        self._check_autocast_outputs(result, out_dtypes)
        return result

    def _check_autocast_outputs(self, result, out_dtypes) -> None:
        """An output whose dtype a DSL auto-cast changed from the declared one: TbeLaunchError naming the function,
        the instruction and the cast (raised before the kernel is published or run)."""
        outputs = [(arg, notes) for arg, notes in zip(result.args, result.autocasts or ()) if arg.output]
        for index, ((arg, notes), dtype) in enumerate(zip(outputs, out_dtypes)):
            if notes and not _dtype_fits(arg.dtype, dtype):
                raise TbeLaunchError(
                    f"Custom op '{self.desc.name}' (func_type='tbe', kernel '{result.name}'): output {index} is "
                    f"{arg.dtype} but the op declares {dtype}: {'; '.join(notes)}. TBE keeps the computed dtype: end "
                    f"the compute with cast_to(res, \"{dtype}\") or declare {arg.dtype}")

    def _call_impl(self, args: list, kernel_name: str) -> None:
        """Call the impl inside a static OpContext, as CANN's compiler does (``tbe_context.get_context()`` works)."""
        from te_compat.surface.context import OpContext
        with OpContext("static"):
            self._call_with_kernel_name(args, kernel_name)

    def _call_with_kernel_name(self, args: list, kernel_name: str) -> None:
        func = self.desc.func
        try:
            params = inspect.signature(func).parameters.values()
        except (TypeError, ValueError):
            func(*args, kernel_name=kernel_name)
            return
        by_keyword = any(p.kind == p.VAR_KEYWORD or (p.name == "kernel_name" and p.kind != p.POSITIONAL_ONLY)
                         for p in params)
        positional = sum(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params)
        if by_keyword:
            func(*args, kernel_name=kernel_name)
        elif positional > len(args) or any(p.kind == p.VAR_POSITIONAL for p in params):
            func(*args, kernel_name)
        else:
            func(*args)

    # ---- running -----------------------------------------------------------------------------------------------
    def _fit_inputs(self, built, arrays: list) -> list:
        """Inputs reshaped to the kernel's placeholders when only the shape differs (ops flatten inside), an input
        smaller than its placeholder zero-filled to it (ops that round a length up to the cube's 16), and a
        one-byte input (bool arrives as int8) seen as the placeholder's one-byte dtype (bool, int8 or uint8)."""
        fitted = []
        for array, spec in zip(arrays, built.inputs):
            if spec.kind == "gm" and array.shape != spec.shape and array.size < prod(spec.shape) and \
                    array.dtype.name == spec.dtype:
                # the op rounds the input up (a (47,) bias read as (48,)): the rest reads as zeros
                padded = np.zeros(prod(spec.shape), array.dtype)
                padded[:array.size] = array.reshape(-1)
                array = padded
            if spec.kind == "gm" and array.shape != spec.shape and array.size == prod(spec.shape):
                array = array.reshape(spec.shape)
            if spec.kind == "gm" and array.dtype.name != spec.dtype and {array.dtype.name, spec.dtype} <= \
                    set(_BYTE_DTYPES):
                array = array.view(np.dtype(spec.dtype))
            fitted.append(array)
        return fitted + list(arrays[len(fitted):])

    def _match_outputs(self, built, results: list, out_shapes, out_dtypes) -> list:
        what = f"Custom op '{self.desc.name}' (func_type='tbe', kernel '{built.name}')"
        if len(results) != len(out_shapes):
            raise TbeLaunchError(f"{what}: the kernel writes {len(results)} output(s) but the op declares "
                                 f"{len(out_shapes)}")
        outs = []
        for index, (result, shape, dtype) in enumerate(zip(results, out_shapes, out_dtypes)):
            shape = tuple(int(d) for d in shape)
            if result.size != prod(shape):
                raise TbeLaunchError(f"{what}: output {index} has {result.size} elements but the declared shape "
                                     f"{list(shape)} has {prod(shape)}")
            if result.dtype.name != dtype:
                if not _dtype_fits(result.dtype.name, dtype):
                    raise TbeLaunchError(f"{what}: output {index} is {result.dtype.name} but the op declares "
                                         f"{dtype}")
                result = result != 0
            outs.append(result.reshape(shape))
        return outs
