"""`from te import tvm` / `from tbe import tvm`: the old TVM API builds TVM 0.27 graphs that compile and compute."""
import collections

import numpy as np
import pytest

import tvm as real_tvm
from npusim.errors import TbeArgumentError, TbeTypeError, UnsupportedError


def compile_and_run(tensors, inputs):
    """Compile ``tensors`` (inputs first, then outputs) with TVM/LLVM and return the outputs for ``inputs``."""
    func = real_tvm.te.create_prim_func(list(tensors))
    module = real_tvm.compile(func, target="llvm")
    outs = [np.zeros([int(d) for d in t.shape], str(t.dtype)) for t in tensors[len(inputs):]]
    args = [real_tvm.runtime.tensor(a) for a in list(inputs) + outs]
    module(*args)
    return [a.numpy() for a in args[len(inputs):]]


def test_te_tvm_and_tbe_tvm_serve_the_same_api():
    from tbe import tvm as tbe_tvm
    from te import tvm
    import te.tvm.target
    assert te.tvm is tvm
    for name in tvm.__all__:
        assert getattr(tbe_tvm, name) is getattr(tvm, name), name
    assert tvm.target is te.tvm.target


def test_graph_built_with_the_shim_compiles_on_llvm_and_matches_numpy():
    from te import tvm
    x = tvm.placeholder((3, 5), name="x", dtype="float32")
    y = tvm.placeholder([np.int64(3), 5], name="y", dtype="float32")
    k = tvm.reduce_axis((0, 5), name="k")
    total = tvm.compute((3,), lambda i: tvm.sum(x[i, k] * y[i, k], axis=k), name="total", tag="reduce_sum")
    peak = tvm.compute((3,), lambda i: tvm.max(x[i, k], axis=k), name="peak")
    relu = tvm.compute((3, 5), lambda *i: tvm.select(x(*i) > 0, x(*i), 0.0), name="relu", tag="elewise_single_relu",
                       attrs={"alpha": 0.5})
    ex = tvm.compute(x.shape, lambda i, j: tvm.exp(x[i, j]) + tvm.const(1, "float32") + tvm.sqrt(tvm.abs(y[i, j])),
                     name="ex")
    assert relu.op.tag == "elewise_single_relu" and float(relu.op.attrs["alpha"]) == 0.5
    rng = np.random.default_rng(0)
    a = rng.standard_normal((3, 5)).astype(np.float32)
    b = rng.standard_normal((3, 5)).astype(np.float32)
    got_total, got_peak, got_relu, got_ex = compile_and_run([x, y, total, peak, relu, ex], [a, b])
    np.testing.assert_allclose(got_total, (a * b).sum(1), rtol=1e-5)
    np.testing.assert_allclose(got_peak, a.max(1))
    np.testing.assert_allclose(got_relu, np.maximum(a, 0))
    np.testing.assert_allclose(got_ex, np.exp(a) + 1 + np.sqrt(np.abs(b)), rtol=1e-5)


def test_comm_reducer_var_and_casts():
    from te import tvm
    n = tvm.var("n")
    assert str(n.dtype) == "int32" and isinstance(n, tvm.expr.Var)
    argmax_free = tvm.comm_reducer(lambda a, b: a * b, lambda t: tvm.const(1, dtype=t), name="prod")
    x = tvm.placeholder((2, 4), name="x", dtype="float32")
    k = tvm.reduce_axis((0, 4), name="k")
    prod = tvm.compute((2,), lambda i: argmax_free(x[i, k], axis=k), name="prod")
    half = tvm.compute((2, 4), lambda i, j: x[i, j].astype("float16"), name="half")
    a = np.arange(1, 9, dtype=np.float32).reshape(2, 4)
    got_prod, got_half = compile_and_run([x, prod, half], [a])
    np.testing.assert_allclose(got_prod, a.prod(1))
    assert got_half.dtype == np.float16 and np.array_equal(got_half, a.astype(np.float16))


def test_const_dtypes_follow_old_tvm_defaults():
    from te import tvm
    assert tvm.const(1).dtype == "int32"
    assert tvm.const(1.5).dtype == "float32"
    assert tvm.const(np.float16(2.0), "float16").dtype == "float16"
    assert tvm.const(3, dtype=tvm.placeholder((1,), "float16").dtype).dtype == "float16"
    assert isinstance(tvm.const(2), tvm.expr.ConstExpr)


def test_tensor_dtype_is_a_str_like_cann_tvm():
    from te import tvm
    x = tvm.placeholder((4,), name="x", dtype="float16")
    assert x.dtype.lower() == "float16" and type(x.dtype) is str
    assert {"float16": 2}[x.dtype] == 2 and x.dtype[-2:] == "16" and "float" in x.dtype
    assert x[0].dtype == "float16" and (x[0] + 1).dtype == "float16"
    assert str((x + x).dtype) == "float16"  # topi's tensor overloads keep working
    import copy
    import pickle
    assert type(copy.deepcopy(x.dtype)) is str and pickle.loads(pickle.dumps(x.dtype)) == "float16"


def test_select_with_python_scalars_takes_the_other_branch_dtype():
    from te import tvm
    x = tvm.placeholder((3,), name="x", dtype="float16")
    clipped = tvm.compute((3,), lambda i: tvm.select(x[i] < 1, x[i], 1), name="clipped")
    assert clipped.dtype == "float16"
    (got,) = compile_and_run([x, clipped], [np.array([0.5, 2, -3], np.float16)])
    np.testing.assert_array_equal(got, np.array([0.5, 1, -3], np.float16))


def test_shape_and_dimension_type_errors():
    from te import tvm
    with pytest.raises(TbeTypeError, match="shape dimension"):
        tvm.placeholder((2, "3"), name="bad")
    with pytest.raises(TbeTypeError, match="shape must be a list or tuple"):
        tvm.placeholder({2: 3}, name="bad")
    assert tuple(int(d) for d in tvm.placeholder(7, name="v").shape) == (7,)


def test_target_cce_is_a_context_manager_with_current_target():
    from te import tvm
    from te.tvm.target import cce
    assert tvm.target.current_target() is None
    with tvm.target.cce() as outer:
        assert tvm.target.current_target() is outer and outer.target_name == "cce"
        with cce("-opt=1") as inner:
            assert tvm.target.current_target() is inner and str(inner) == "cce -opt=1"
        assert tvm.target.current_target() is outer
    assert tvm.target.current_target() is None
    with pytest.raises(TbeArgumentError, match="no target is active"):
        tvm.target.current_target(allow_none=False)
    assert str(tvm.target.create("llvm").kind.name) == "llvm"


def test_build_config_accepts_old_kwargs_and_nests():
    from te import tvm
    from te.platform.cce_build import build_config
    from tbe.common.buildcfg import get_current_build_config
    assert get_current_build_config("dump_pass_ir") is False
    with tvm.build_config(dump_pass_ir=True, double_buffer_split_loop=2) as cfg:
        assert cfg.double_buffer_split_loop == 2
        with build_config:
            assert get_current_build_config("dump_pass_ir") is True
        with build_config(enable_op_prebuild=True):
            assert get_current_build_config()["enable_op_prebuild"] is True
    assert get_current_build_config("dump_pass_ir") is False
    with pytest.raises(TbeArgumentError, match="unknown build option 'no_such_option'"):
        get_current_build_config("no_such_option")


def test_create_schedule_records_outputs_and_refuses_stage_primitives():
    from te import tvm
    x = tvm.placeholder((4,), name="x", dtype="float32")
    y = tvm.compute((4,), lambda i: x[i] * 2, name="y")
    sch = tvm.create_schedule(y.op)
    assert len(sch.outputs) == 1 and sch.outputs[0].op.name == "y"
    assert tvm.create_schedule([y]).outputs[0] is y
    assert not hasattr(sch, "lower")  # cce_build_code sends it to the scalar-pipe fallback
    with pytest.raises(UnsupportedError, match="stage primitives"):
        sch[y].split(y.op.axis[0], factor=2)
    with pytest.raises(TbeTypeError):
        tvm.create_schedule("y")


def test_ir_builder_is_reported_unsupported():
    from te import tvm
    with pytest.raises(UnsupportedError, match="ir_builder"):
        tvm.ir_builder.create()


def test_expr_and_tensor_namespaces():
    from te import tvm
    x = tvm.placeholder((2,), name="x")
    assert isinstance(x, tvm.tensor.Tensor) and isinstance(x.op, tvm.tensor.PlaceholderOp)
    assert isinstance(tvm.const(1.0) + tvm.var("a", "float32"), tvm.expr.Add)
    assert tvm.expr.UIntImm is tvm.expr.IntImm and tvm.intrin.pow is tvm.power


def test_collections_aliases_are_restored():
    import te  # noqa: F401
    from collections import Iterable, Mapping  # noqa: F401  (what 2020 op files do)
    assert collections.Iterable is collections.abc.Iterable
    assert isinstance([], Iterable)
