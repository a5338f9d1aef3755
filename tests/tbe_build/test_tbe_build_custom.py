"""ops.Custom(func_type="tbe"): how the impl function is called, the build cache, output matching, errors."""
import collections
import os
import re
import warnings

import numpy as np
import pytest
from tbe_build_support import FakeSchedule, copy_graph, vadd_graph

import mindspore as ms
from mindspore import Tensor, context, ops
from mindspore.ops import CustomRegOp, DataType, custom_info_register
from npusim.custom.backends.tbe import clear_memory_cache
from npusim.errors import TbeBuildError, TbeLaunchError
from npusim.sim import profile, set_chip
from te_compat.build import cce_build_code

F16 = DataType.F16_Default
F32 = DataType.F32_Default


def Recorder():
    """A call log the impl closes over.  The kernel cache key describes closure values by content (lists, dicts,
    objects' attributes), so a list would change the key after the first call; a deque has no attributes to read
    and counts by its type only."""
    return collections.deque()


def add_reg(*attrs):
    reg = CustomRegOp().input(0, "a").input(1, "b").output(0, "y")
    for name, kind in attrs:
        reg = reg.attr(name, "required", kind)
    return reg.dtype_format(F16, F16, F16).dtype_format(F32, F32, F32).target("Ascend").get_op_info()


def make_add(calls, *attrs):
    """An impl in the real style (dicts in, cce_build_code out) that records every call."""
    @custom_info_register(add_reg(*attrs))
    def add(a, b, y, *rest, kernel_name="add"):
        calls.append({"a": a, "b": b, "y": y, "attrs": rest, "kernel_name": kernel_name})
        data0, data1, res = vadd_graph(a["shape"], a["dtype"].lower())
        cce_build_code(FakeSchedule([res]), {"name": kernel_name, "tensor_list": [data0, data1, res]})
    return add


def custom_add(calls, *attrs):
    same = lambda x, *_: x  # noqa: E731
    return ops.Custom(make_add(calls, *attrs), out_shape=same, out_dtype=same, func_type="tbe")


def values(shape=(2, 2), dtype=np.float32):
    x = np.arange(np.prod(shape)).reshape(shape).astype(dtype)
    return x, x * 2 + 1


def test_seed_style_add_runs_on_the_simulator_for_f16_and_f32():
    calls = Recorder()
    op = custom_add(calls)
    for dtype in (np.float32, np.float16):
        x, y = values((2, 2), dtype)
        out = op(Tensor(x), Tensor(y))
        assert isinstance(out, ms.Tensor) and out.dtype == (ms.float32 if dtype == np.float32 else ms.float16)
        np.testing.assert_array_equal(out.asnumpy(), x + y)
    assert [c["a"]["dtype"] for c in calls] == ["float32", "float16"]


def test_impl_receives_dicts_attrs_and_kernel_name():
    calls = Recorder()
    op = custom_add(calls, ("alpha", "float"), ("mode", "str"))
    x, y = values((3, 16), np.float16)
    op(Tensor(x), Tensor(y), 2, "fast")
    (call,) = calls
    want = {"shape": [3, 16], "dtype": "float16", "format": "NCHW", "ori_shape": [3, 16], "ori_format": "NCHW"}
    assert call["a"] == want and call["b"] == want and call["y"] == want
    assert call["attrs"] == (2.0, "fast") and isinstance(call["attrs"][0], float)
    name = call["kernel_name"]
    assert re.fullmatch(r"add_[0-9a-f]{16}", name) and len(name) <= 200


def test_kernel_names_are_unique_per_signature_and_valid_for_any_function_name():
    calls = Recorder()
    op = custom_add(calls)
    op(*map(Tensor, values((2, 16), np.float16)))
    op(*map(Tensor, values((4, 16), np.float16)))
    op(*map(Tensor, values((4, 16), np.float32)))
    names = [c["kernel_name"] for c in calls]
    assert len(set(names)) == 3
    backend = op.backend
    backend.desc = type(backend.desc)(func=backend.desc.func, name="my-op.v2" + "x" * 300, reg_info=None,
                                      device_target="Ascend", func_type="tbe")
    long_name = backend.kernel_name("0123456789abcdef" * 3)
    assert re.fullmatch(r"[A-Za-z0-9_]{1,200}", long_name) and long_name.startswith("my_op_v2x")


def test_relaunch_does_not_call_the_impl_again():
    calls = Recorder()
    op = custom_add(calls)
    x, y = values((2, 64), np.float16)
    for _ in range(3):
        np.testing.assert_array_equal(op(Tensor(x), Tensor(y)).asnumpy(), x + y)
    assert len(calls) == 1 and op.backend.impl_calls == 1
    other = ops.Custom(op.func, out_shape=lambda a, _: a, out_dtype=lambda a, _: a, func_type="tbe")
    other(Tensor(x), Tensor(y))
    assert len(calls) == 1  # the in-memory cache is shared by every Custom op of the same function


def test_disk_cache_survives_the_memory_cache(tmp_path):
    calls = Recorder()
    op = custom_add(calls)
    x, y = values((2, 64), np.float16)
    op(Tensor(x), Tensor(y))
    entries = os.listdir(tmp_path / "cache" / "tbe")
    assert len(entries) == 1
    kernel_meta = tmp_path / "cache" / "tbe" / entries[0] / "kernel_meta"
    assert sorted(p.suffix for p in kernel_meta.iterdir()) == [".json", ".o"]
    clear_memory_cache()
    np.testing.assert_array_equal(custom_add(calls)(Tensor(x), Tensor(y)).asnumpy(), x + y)
    assert len(calls) == 1


def test_cache_key_covers_shapes_dtypes_attrs_and_chip():
    calls = Recorder()
    op = custom_add(calls, ("alpha", "float"))
    x, y = values((2, 16), np.float16)
    op(Tensor(x), Tensor(y), 1.0)
    op(Tensor(x), Tensor(y), 1.0)
    assert len(calls) == 1
    op(Tensor(x), Tensor(y), 2.0)
    assert len(calls) == 2
    op(Tensor(x.astype(np.float32)), Tensor(y.astype(np.float32)), 2.0)
    assert len(calls) == 3
    op(Tensor(x[:1]), Tensor(y[:1]), 2.0)
    assert len(calls) == 4
    set_chip("Ascend310")
    np.testing.assert_array_equal(op(Tensor(x), Tensor(y), 1.0).asnumpy(), x + y)
    assert len(calls) == 5


def test_corrupt_disk_entry_is_rebuilt(tmp_path):
    calls = Recorder()
    x, y = values((2, 64), np.float16)
    custom_add(calls)(Tensor(x), Tensor(y))
    (entry,) = os.listdir(tmp_path / "cache" / "tbe")
    (obj,) = (tmp_path / "cache" / "tbe" / entry / "kernel_meta").glob("*.o")
    obj.write_bytes(b"garbage")
    clear_memory_cache()
    np.testing.assert_array_equal(custom_add(calls)(Tensor(x), Tensor(y)).asnumpy(), x + y)
    assert len(calls) == 2


def test_builds_go_to_the_cache_not_the_working_directory(_isolated_build_env, tmp_path, monkeypatch):
    monkeypatch.setenv("NPUSIM_KERNEL_META", str(tmp_path / "user_meta"))
    custom_add([])(*map(Tensor, values()))
    assert not (_isolated_build_env / "kernel_meta").exists() and not (tmp_path / "user_meta").exists()
    assert not [p for p in (tmp_path / "cache" / "tbe").iterdir() if p.name.endswith(".staging")]


def test_launch_is_profiled():
    calls = Recorder()
    op = custom_add(calls)
    with profile() as prof:
        op(*map(Tensor, values((2, 64), np.float16)))
        op(*map(Tensor, values((2, 64), np.float16)))
    assert [r.kernel.name for r in prof.records] == [calls[0]["kernel_name"]] * 2


@pytest.mark.parametrize("target", ["CPU", "Ascend"])
def test_any_device_target_runs_on_the_simulator_silently(target):
    context.set_context(device_target=target)
    calls = Recorder()
    op = custom_add(calls)
    x, y = values()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with profile() as prof:
            out = op(Tensor(x), Tensor(y))
    np.testing.assert_array_equal(out.asnumpy(), x + y)
    assert len(prof.records) == 1


def test_the_build_leaves_the_compat_layer_as_the_user_set_it():
    from npusim.compat import aliases
    seen = []

    def impl(a, y, kernel_name):
        seen.append(aliases.installed())
        data0, res = copy_graph(a["shape"], a["dtype"], y["dtype"])
        cce_build_code(FakeSchedule([res]), {"name": kernel_name, "tensor_list": [data0, res]})

    op = ops.Custom(impl, out_shape=lambda s: s, out_dtype=lambda t: t, func_type="tbe")
    aliases.uninstall()
    try:
        op(Tensor(np.ones(16, np.float32)))
        assert seen == [False] and not aliases.installed()  # the layer sits above Custom: never switched
    finally:
        aliases.install()


def test_bool_inputs_arrive_as_int8_and_bool_outputs_accept_uint8():
    seen = []

    def impl(x, y, kernel_name="cmp"):
        seen.append((x["dtype"], y["dtype"]))
        data0, res = copy_graph(x["shape"], x["dtype"], "uint8")
        cce_build_code(FakeSchedule([res]), {"name": kernel_name, "tensor_list": [data0, res]})

    op = ops.Custom(impl, out_shape=lambda s: s, out_dtype=lambda t: t, func_type="tbe")
    mask = np.array([[True, False, True], [False, False, True]])
    out = op(Tensor(mask))
    assert seen == [("int8", "int8")]
    assert out.dtype == ms.bool_ and out.asnumpy().dtype == np.bool_
    np.testing.assert_array_equal(out.asnumpy(), mask)


def test_ops_that_flatten_inside_are_matched_by_size():
    def impl(x, y, kernel_name):
        size = int(np.prod(x["shape"]))
        data0, res = copy_graph((size,), x["dtype"], y["dtype"])
        cce_build_code(FakeSchedule([res]), {"name": kernel_name, "tensor_list": [data0, res]})

    op = ops.Custom(impl, out_shape=lambda s: s, out_dtype=lambda t: t, func_type="tbe")
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    out = op(Tensor(x))
    assert out.shape == (2, 3, 4)
    np.testing.assert_array_equal(out.asnumpy(), x)


def test_kernel_name_passing_variants():
    names = []

    def positional(x, y, name):
        names.append(name)
        data0, res = copy_graph(x["shape"], x["dtype"], y["dtype"])
        cce_build_code(FakeSchedule([res]), {"name": name, "tensor_list": [data0, res]})

    def no_name(x, y):  # builds under its own name: the only kernel of the build is used
        data0, res = copy_graph(x["shape"], x["dtype"], y["dtype"])
        cce_build_code(FakeSchedule([res]), {"name": "fixed_name", "tensor_list": [data0, res]})

    x = np.arange(8, dtype=np.float32)
    for impl in (positional, no_name):
        op = ops.Custom(impl, out_shape=lambda s: s, out_dtype=lambda t: t, func_type="tbe")
        np.testing.assert_array_equal(op(Tensor(x)).asnumpy(), x)
    assert re.fullmatch(r"positional_[0-9a-f]{16}", names[0])


def _op(impl):
    return ops.Custom(impl, out_shape=lambda s: s, out_dtype=lambda t: t, func_type="tbe")


def test_impl_error_is_typed_names_the_op_and_chains_the_cause():
    def broken(x, y, kernel_name):
        raise ValueError("shape [8] is not supported")

    with pytest.raises(TbeBuildError) as info:
        _op(broken)(Tensor(np.ones(8, np.float32)))
    text = str(info.value)
    assert "Custom op 'broken'" in text and "ValueError: shape [8] is not supported" in text
    assert isinstance(info.value.__cause__, ValueError) and isinstance(info.value, RuntimeError)


def test_impl_that_builds_nothing_or_the_wrong_kernels():
    def nothing(x, y, kernel_name):
        return None

    with pytest.raises(TbeBuildError, match="Custom op 'nothing'.*built nothing"):
        _op(nothing)(Tensor(np.ones(8, np.float32)))

    def two(x, y, kernel_name):
        for name in ("first", "second"):
            data0, res = copy_graph(x["shape"], x["dtype"], y["dtype"])
            cce_build_code(FakeSchedule([res]), {"name": name, "tensor_list": [data0, res]})

    with pytest.raises(TbeBuildError, match=r"built 2 kernels \(first, second\) and none is named 'two_"):
        _op(two)(Tensor(np.ones(8, np.float32)))


def test_output_mismatches_are_launch_errors():
    def wrong_dtype(x, y, kernel_name):
        data0, res = copy_graph(x["shape"], x["dtype"], "int32")
        cce_build_code(FakeSchedule([res]), {"name": kernel_name, "tensor_list": [data0, res]})

    with pytest.raises(TbeLaunchError, match="Custom op 'wrong_dtype'.*output 0 is int32 but the op declares float32"):
        _op(wrong_dtype)(Tensor(np.ones(8, np.float32)))

    def wrong_size(x, y, kernel_name):
        data0, res = copy_graph(x["shape"], x["dtype"], y["dtype"], out_shape=(4,))
        cce_build_code(FakeSchedule([res]), {"name": kernel_name, "tensor_list": [data0, res]})

    with pytest.raises(TbeLaunchError, match="output 0 has 4 elements but the declared shape \\[8\\] has 8"):
        _op(wrong_size)(Tensor(np.ones(8, np.float32)))


def test_func_must_be_callable():
    with pytest.raises(TypeError, match="'func' of func_type 'tbe' must be a function"):
        ops.Custom("add.py:add", out_shape=[1], out_dtype=ms.float32, func_type="tbe")


def test_bprop_made_of_tbe_ops_under_grad_operation_with_sens():
    from mindspore import nn
    calls = Recorder()
    add = custom_add(calls)  # the bprop's kernel: d(x + y) = (dout, dout), computed as dout + 0 on the device

    def bprop(x, y, out, dout):
        zeros = Tensor(np.zeros(dout.shape, dout.asnumpy().dtype))
        return add(dout, zeros), add(zeros, dout)

    same = lambda x, *_: x  # noqa: E731
    fwd = ops.Custom(make_add(calls), out_shape=same, out_dtype=same, func_type="tbe", bprop=bprop)

    class Net(nn.Cell):
        def construct(self, x, y):
            return fwd(x, y)

    x, y = values((2, 16), np.float32)
    sens = Tensor(np.full((2, 16), 3.0, np.float32))
    gx, gy = ops.GradOperation(get_all=True, sens_param=True)(Net())(Tensor(x), Tensor(y), sens)
    np.testing.assert_array_equal(gx.asnumpy(), np.full((2, 16), 3.0, np.float32))
    np.testing.assert_array_equal(gy.asnumpy(), np.full((2, 16), 3.0, np.float32))
    assert len(calls) == 1  # forward and bprop share one kernel: same function, same signature


def test_closures_with_different_captured_values_do_not_share_kernels():
    def factory(out_dtype):
        def impl(x, y, kernel_name):
            data0, res = copy_graph(x["shape"], x["dtype"], out_dtype)
            cce_build_code(FakeSchedule([res]), {"name": kernel_name, "tensor_list": [data0, res]})
        return impl

    x = np.arange(8, dtype=np.int32)
    as_int = ops.Custom(factory("int32"), out_shape=lambda s: s, out_dtype=lambda t: t, func_type="tbe")
    as_float = ops.Custom(factory("float32"), out_shape=lambda s: s, out_dtype=ms.float32, func_type="tbe")
    np.testing.assert_array_equal(as_int(Tensor(x)).asnumpy(), x)
    np.testing.assert_array_equal(as_float(Tensor(x)).asnumpy(), x.view(np.float32))  # the bytes, reinterpreted
    assert as_int.backend.source_digest != as_float.backend.source_digest
