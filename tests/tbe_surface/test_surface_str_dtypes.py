"""Op files see CANN's old-TVM objects (``dtype`` a ``str``) through thin surface wrappers; no TVM class is patched.

The ops below are written the way CANN op files are (``x.dtype.lower()``, ``res.dtype`` as a dict key,
``tvm.const(0, data(*i).dtype)``, ``isinstance(x, tvm.tensor.Tensor)``, ``x.shape[0].value``) and their kernels
run on the simulator.
"""
import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import tvm as real_tvm
from npusim.errors import TbeTypeError

# Runs in a fresh interpreter: snapshot every class of every loaded tvm / tvm_ffi module, switch the compatibility
# layer on, import the whole surface, build and run an op through it, then report any class attribute (or module
# attribute) that is no longer the object it was.
NO_PATCH_SCRIPT = textwrap.dedent('''
    import json, sys, types
    import numpy as np
    import tvm
    from tvm import te as tvm_te, tirx, topi  # noqa: F401

    MISSING = object()

    def tvm_modules():
        return [m for n, m in list(sys.modules.items()) if n.split(".")[0] in ("tvm", "tvm_ffi") and m is not None]

    def classes(modules):
        found = {}
        for module in modules:
            for value in list(vars(module).values()):
                if isinstance(value, type) and str(value.__module__).split(".")[0] in ("tvm", "tvm_ffi"):
                    found[id(value)] = value
        return list(found.values())

    modules = tvm_modules()
    class_attrs = [(cls, dict(vars(cls))) for cls in classes(modules)]
    module_attrs = [(module, dict(vars(module))) for module in modules]
    originals = (tvm_te.Tensor.__dict__["dtype"], tvm_te.Tensor.__dict__["expr_ty"], tvm.ir.Var.__dict__["dtype"])

    import npusim.compat  # noqa: F401
    import te.lang.cce
    import tbe
    import tbe.dsl
    import topi  # noqa: F401
    import impl.util.platform_adapter  # noqa: F401
    from te import tvm as cann_tvm
    from te_compat.build import load_built

    x = cann_tvm.placeholder((4, 16), name="x", dtype="float16")
    res = te.lang.cce.vadds(te.lang.cce.vmuls(x, cann_tvm.const(2, x.dtype)), cann_tvm.const(1, x.dtype))
    assert tbe.dsl.vabs(res).dtype.lower() == "float16" and tbe.var("n").dtype == "int32"
    te.lang.cce.cce_build_code(te.lang.cce.auto_schedule(res), {"name": "no_patch_axpb", "tensor_list": [x, res]})
    data = np.linspace(-2, 2, 64, dtype=np.float16).reshape(4, 16)
    (out,) = load_built("no_patch_axpb").run(data)
    assert np.array_equal(np.asarray(out).reshape(4, 16), data * 2 + 1)

    changed = []
    for cls, before in class_attrs:
        now = vars(cls)
        for key in set(before) | set(now):
            if before.get(key, MISSING) is not now.get(key, MISSING):
                changed.append(f"{cls.__module__}.{cls.__qualname__}.{key}")
    for module, before in module_attrs:
        now = vars(module)
        for key in set(before) | set(now):
            value = now.get(key, MISSING)
            if before.get(key, MISSING) is not value and not isinstance(value, types.ModuleType):
                changed.append(f"{module.__name__}.{key}")
    now = (tvm_te.Tensor.__dict__["dtype"], tvm_te.Tensor.__dict__["expr_ty"], tvm.ir.Var.__dict__["dtype"])
    same = all(a is b for a, b in zip(now, originals))
    print(json.dumps({"changed": sorted(changed), "originals_kept": same,
                      "expr_has_dtype": hasattr(tirx.const(1), "dtype"),
                      "tensor_dtype_type": type(tvm_te.placeholder((2,), "float16").dtype).__name__}))
''')


def test_the_whole_compat_surface_modifies_no_tvm_class(tmp_path):
    proc = subprocess.run([sys.executable, "-c", NO_PATCH_SCRIPT], cwd=tmp_path, capture_output=True, text=True,
                          timeout=300, env={**os.environ, "NPUSIM_KERNEL_META": str(tmp_path / "km")})
    assert proc.returncode == 0, proc.stderr[-3000:]
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    assert report == {"changed": [], "originals_kept": True, "expr_has_dtype": False, "tensor_dtype_type": "PrimType"}


def test_tvm_classes_keep_their_own_dtype_in_this_process_too():
    from te import tvm  # noqa: F401  (the surface is imported)
    from tvm.ir.expr import ExprWithOp
    assert not any("dtype" in vars(cls) for cls in ExprWithOp.__mro__)
    raw = real_tvm.te.placeholder((2,), "float16", name="raw")
    assert isinstance(raw.dtype, real_tvm.ir.PrimType) and not hasattr(real_tvm.tirx.const(1), "dtype")
    with pytest.raises(AttributeError):
        real_tvm.te.var("n").dtype  # noqa: B018  (TVM 0.27: only buffer Vars have one)


def test_tensor_wrapper_answers_like_cann_tvm():
    from te import tvm
    from te.lang.cce import util
    x = tvm.placeholder((4, 16), name="x", dtype="float16")
    assert type(x.dtype) is str and x.dtype.lower() == "float16" and x.dtype[:5] == "float"
    assert {"float16": "half", "float32": "single"}[x.dtype] == "half" and x.dtype in ("float16", "float32")
    assert x.shape[0].value == 4 and x.shape[1].dtype == "int32" and util.shape_to_list(x.shape) == [4, 16]
    assert x.ndim == 2 and x.name == "x" and x.op.name == "x" and len(x.shape) == 2
    assert isinstance(x, tvm.tensor.Tensor) and isinstance(x.op, tvm.tensor.PlaceholderOp)
    assert not isinstance(x.op, tvm.tensor.ComputeOp) and not isinstance(3, tvm.tensor.Tensor)
    assert isinstance(real_tvm.te.placeholder((1,), "int8"), tvm.tensor.Tensor)  # a raw tensor answers too
    y = tvm.compute(x.shape, lambda i, j: x[i, j] + 1, name="y")
    assert x == x and x != y and x.same_as(x) and not x.same_as(y) and {x: 1, y: 2}[x] == 1
    assert y.op.input_tensors[0] == x and y.op.input_tensors[0].dtype == "float16"
    assert isinstance(y.op, tvm.tensor.ComputeOp) and [int(d) for d in y.shape] == [4, 16]


def test_expr_wrapper_has_str_dtypes_and_operators_on_both_sides():
    from te import tvm
    x = tvm.placeholder((8,), name="x", dtype="float32")
    e = x[3]
    for value in (e + 1, 1 + e, e - 2, 2 - e, e * 3, 3 * e, e / 4, 4 / e, -e, e + e, x(3) * e,
                  tvm.exp(e), e.astype("float16").astype("float32")):
        assert type(value.dtype) is str and value.dtype == "float32", value
    for value in (e > 0, 0 < e, e <= 1, 1 >= e, e == e, e != 2):
        assert value.dtype == "bool", value
    n = tvm.var("n")
    assert n.dtype == "int32" and isinstance(n, tvm.expr.Var) and not isinstance(n, tvm.expr.IntImm)
    for value in (n // 2, 7 // n, n % 3, 9 % n, n << 1, 1 << n, n >> 1, n & 3, 3 & n, n | 1, 1 | n, n ^ 5, ~n):
        assert value.dtype == "int32", value
    c = tvm.const(6, "int32")
    assert c.value == 6 and int(c) == 6 and bool(c == 6) and not bool(c == 5) and isinstance(c, tvm.expr.ConstExpr)
    assert float(tvm.const(2.5, "float16")) == 2.5 and tvm.const(1.5).dtype == "float32"
    assert isinstance(c + n, tvm.expr.Add) and isinstance(real_tvm.tirx.const(1), tvm.expr.IntImm)
    k = tvm.reduce_axis((0, 8), name="k")
    assert k.dtype == "int32" and int(k.dom.extent) == 8 and isinstance(k, tvm.expr.IterVar)
    assert tvm.expr.IntImm("int8", 3).dtype == "int8"
    with pytest.raises(TypeError):
        iter(e)
    with pytest.raises(TypeError):
        list(x)  # x[i] exists for every i: iterating a tensor must fail, not loop


def test_wrappers_convert_wherever_tvm_takes_objects():
    from te import tvm
    x = tvm.placeholder((4,), name="x", dtype="float16")
    e, c = x[1], tvm.const(2, "float16")
    assert str(real_tvm.tirx.max(c, tvm.const(5, "float16"))) == 'T.float16(5.0)'
    picked = real_tvm.tirx.Select(e > c, e, c)
    assert isinstance(picked, real_tvm.tirx.Select) and str(picked.ty) == "float16"
    raw = real_tvm.te.compute((4,), lambda i: x[i] * c, name="raw_times")  # raw TVM accepts wrapped tensors/exprs
    assert isinstance(raw, real_tvm.te.Tensor) and x.same_as(raw.op.input_tensors[0])
    assert isinstance(real_tvm.runtime.convert(c), real_tvm.tirx.FloatImm)


def test_user_reducers_and_callbacks_see_surface_values():
    from te import tvm
    seen = []

    def combine(a, b):
        seen.append((a.dtype, b.dtype))
        return a * b

    def identity(dtype):
        seen.append(("identity", type(dtype).__name__, dtype))
        return tvm.const(1, dtype=dtype)

    prod = tvm.comm_reducer(combine, identity, name="prod")
    x = tvm.placeholder((2, 3), name="x", dtype="float32")
    k = tvm.reduce_axis((0, 3), name="k")
    out = tvm.compute((2,), lambda i: prod(x[i, k], axis=k), name="prod_out")
    assert out.dtype == "float32" and ("float32", "float32") in seen and ("identity", "str", "float32") in seen
    assert tvm.max(tvm.const(3), tvm.const(7)).value == 7


def test_internals_accept_wrappers_and_read_dtypes_without_the_attribute():
    from te import tvm
    from te_compat import dsl
    from te_compat.graph import extract
    from te_compat.objects import dtype_of, raw
    x = tvm.placeholder((4, 8), name="x", dtype="float16")
    out = dsl.vadd(x, x)  # an internal DSL function given surface tensors returns a raw TVM tensor
    assert isinstance(out, real_tvm.te.Tensor) and out.op.input_tensors[0].same_as(raw(x))
    graph = extract([tvm.compute(x.shape, lambda *i: x(*i) * 2, name="twice")])
    assert [n.dtype for n in graph.nodes] == ["float16", "float16"] and graph.node_of(x).is_placeholder
    assert [dtype_of(v) for v in (raw(x), raw(x)[0], real_tvm.te.var("n"), real_tvm.te.reduce_axis((0, 2)),
                                  real_tvm.tirx.const(1.0, "float16") > 0, x, x[0, 0])] == \
        ["float16", "float16", "int32", "int32", "bool", "float16", "float16"]
    with pytest.raises(TbeTypeError, match="has no dtype"):
        dtype_of("float16")


# ---- op files in CANN's style, built and run on the simulator ------------------------------------------------------

#: per-dtype constants keyed by the tensor's dtype, as op files keep them
_SLOPE = {"float16": 0.5, "float32": 0.25}


def scaled_leaky_compute(data, kernel_name):
    """te.lang.cce style: dtype read from the tensor and used as str / dict key."""
    import te.lang.cce
    from te import tvm
    assert isinstance(data, tvm.tensor.Tensor) and data.dtype.lower() in ("float16", "float32")
    rows = data.shape[0].value
    assert te.lang.cce.util.shape_to_list(data.shape)[0] == rows
    scaled = te.lang.cce.vmuls(data, tvm.const(_SLOPE[data.dtype], dtype=data.dtype))
    res = te.lang.cce.vmax(data, scaled)
    if res.dtype[:5] == "float" and res.dtype != "float32":
        res = te.lang.cce.cast_to(te.lang.cce.cast_to(res, "float32"), res.dtype)
    return res


def scaled_leaky(x, y, kernel_name="scaled_leaky"):
    import te.lang.cce
    from te import tvm
    from topi import generic
    shape, dtype = x.get("shape"), x.get("dtype").lower()
    data = tvm.placeholder(shape, name="data", dtype=dtype)
    res = scaled_leaky_compute(data, kernel_name)
    assert res.dtype == y.get("dtype").lower()
    with tvm.target.cce():
        sch = generic.auto_schedule(res)
    te.lang.cce.cce_build_code(sch, {"name": kernel_name, "tensor_list": [data, res]})


@pytest.mark.parametrize("dtype", ["float16", "float32"])
def test_a_cann_style_dsl_op_builds_and_runs_on_the_simulator(dtype, tensor_dict, tmp_path, monkeypatch):
    monkeypatch.setenv("NPUSIM_KERNEL_META", str(tmp_path / "kernel_meta"))
    from te_compat.build import load_built
    scaled_leaky(tensor_dict([3, 40], dtype), tensor_dict([3, 40], dtype), kernel_name=f"leaky_{dtype}")
    data = np.linspace(-8, 8, 120).astype(dtype).reshape(3, 40)
    (out,) = load_built(f"leaky_{dtype}").run(data)
    np.testing.assert_array_equal(np.asarray(out).reshape(3, 40), np.maximum(data, data * _SLOPE[dtype]))


def clamp_shift(x, y, kernel_name="clamp_shift"):
    """tvm.compute style: select on calls, constants of the call's dtype, tvm.expr.Select, reflected operators."""
    import te.lang.cce
    from te import tvm
    dtype = x.get("dtype").lower()
    data = tvm.placeholder(x.get("shape"), name="data", dtype=dtype)
    relu = tvm.compute(data.shape, lambda *i: tvm.select(data(*i) > 0, data(*i), tvm.const(0, data(*i).dtype)),
                       name="relu")
    res = tvm.compute(relu.shape, lambda *i: tvm.expr.Select(relu(*i) == data(*i), 1 - relu(*i) * 2,
                                                             tvm.const(0.5, dtype=relu.dtype) + data(*i)), name="shift")
    sch = tvm.create_schedule(res.op)
    te.lang.cce.cce_build_code(sch, {"name": kernel_name, "tensor_list": [data, res]})


def test_a_tvm_compute_op_with_select_runs_on_the_simulator(tensor_dict, tmp_path, monkeypatch):
    monkeypatch.setenv("NPUSIM_KERNEL_META", str(tmp_path / "kernel_meta"))
    from te_compat.build import load_built
    from te_compat.fallback import ScalarPipeWarning
    with pytest.warns(ScalarPipeWarning):
        clamp_shift(tensor_dict([2, 24], "float32"), tensor_dict([2, 24], "float32"))
    data = np.linspace(-3, 3, 48, dtype=np.float32).reshape(2, 24)
    (out,) = load_built("clamp_shift").run(data)
    relu = np.maximum(data, 0)
    expected = np.where(relu == data, 1 - relu * 2, np.float32(0.5) + data)
    np.testing.assert_allclose(np.asarray(out).reshape(2, 24), expected, rtol=1e-6)


DYNAMIC_MUL_SOURCE = '''
from impl.util.platform_adapter import tbe, tvm, para_check, shape_util, classify, OpPatternMode, register_operator

_SCALE = {"float16": 2, "float32": 3}


def mul_compute(input_x, input_y, output_z):
    shape_x, shape_y, shape_max = shape_util.broadcast_shapes(shape_util.shape_to_list(input_x.shape),
                                                              shape_util.shape_to_list(input_y.shape))
    res = tbe.vmul(tbe.broadcast(input_x, shape_max), tbe.broadcast(input_y, shape_max))
    res = tbe.vmuls(res, tvm.const(_SCALE[res.dtype], dtype=res.dtype))
    if res.dtype.lower() != output_z.get("dtype").lower():
        res = tbe.cast_to(res, output_z.get("dtype"))
    return res


@register_operator("ScaledMul")
def scaled_mul(input_x, input_y, output_z, kernel_name="scaled_mul"):
    dtype = input_x.get("dtype").lower()
    para_check.check_dtype(dtype, ("float16", "float32"), param_name="x")
    schedules, tensors = [], []
    for (_x, _y) in classify([input_x, input_y], OpPatternMode.ELEWISE_WITH_BROADCAST):
        with tbe.compute():
            shape_x, shape_y = shape_util.variable_shape([_x, _y])
            data_x = tvm.placeholder(shape_x, name="data_x", dtype=dtype)
            data_y = tvm.placeholder(shape_y, name="data_y", dtype=dtype)
            res = mul_compute(data_x, data_y, output_z)
            tensors.append((data_x, data_y, res))
        with tvm.target.cce():
            schedules.append(tbe.auto_schedule(res))
    tbe.build(schedules, {"name": kernel_name, "tensor_list": tensors})
'''


def test_a_2022_style_op_file_with_str_dtypes_runs_on_the_simulator(tensor_dict, tmp_path, monkeypatch):
    monkeypatch.setenv("NPUSIM_KERNEL_META", str(tmp_path / "kernel_meta"))
    (tmp_path / "scaled_mul_surface.py").write_text(DYNAMIC_MUL_SOURCE)
    monkeypatch.syspath_prepend(str(tmp_path))
    module = __import__("scaled_mul_surface")
    from te_compat.build import load_built
    module.scaled_mul(tensor_dict([4, 1], "float16"), tensor_dict([4, 6], "float16"),
                      tensor_dict([4, 6], "float16"), kernel_name="scaled_mul_k")
    a = np.arange(4, dtype=np.float16).reshape(4, 1)
    b = np.linspace(-1, 1, 24, dtype=np.float16).reshape(4, 6)
    (out,) = load_built("scaled_mul_k").run(a, b)
    np.testing.assert_array_equal(np.asarray(out).reshape(4, 6), (a * b) * np.float16(2))
