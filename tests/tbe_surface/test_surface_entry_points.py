"""auto_schedule / cce_build_code / tbe.dsl.build on the surface delegate to te_compat.schedule / te_compat.build."""
import types

import numpy as np
import pytest

from npusim.errors import TbeArgumentError


@pytest.fixture
def fake_backends(monkeypatch):
    # the surface modules import their real helpers (te_compat.build.deferred ...) when first imported: import them
    # for real before the backends are faked, whatever ran before in this process
    import impl.util.platform_adapter  # noqa: F401
    import tbe.dsl  # noqa: F401
    import te.lang.cce  # noqa: F401
    import te.lang.cce.te_schedule.cce_schedule  # noqa: F401
    import te.utils.cce  # noqa: F401
    import topi.generic  # noqa: F401
    calls = []
    schedule = types.ModuleType("te_compat.schedule")
    schedule.auto_schedule = lambda outs, option=None: calls.append(("auto_schedule", outs, option)) or "SCHEDULE"
    build = types.ModuleType("te_compat.build")
    build.cce_build_code = lambda sch, config: calls.append(("cce_build_code", sch, config))
    build.build = lambda sch, config: calls.append(("build", sch, config))
    monkeypatch.setitem(__import__("sys").modules, "te_compat.schedule", schedule)
    monkeypatch.setitem(__import__("sys").modules, "te_compat.build", build)
    return calls


def test_every_auto_schedule_spelling_delegates(fake_backends):
    import te.lang.cce
    import tbe.dsl
    from impl.util.platform_adapter import tbe as adapter_tbe
    from te.lang.cce.te_schedule.cce_schedule import schedule_cce
    from te.utils.cce import auto_schedule as utils_auto_schedule
    from topi import generic
    spellings = [te.lang.cce.auto_schedule, tbe.dsl.auto_schedule, generic.auto_schedule, utils_auto_schedule,
                 adapter_tbe.auto_schedule, schedule_cce, tbe.dsl.api.auto_schedule]
    for index, auto_schedule in enumerate(spellings):
        assert auto_schedule(f"res{index}") == "SCHEDULE"
    assert [c[1] for c in fake_backends] == [f"res{i}" for i in range(len(spellings))]
    te.lang.cce.auto_schedule(["a", "b"], option={"x": 1})
    assert fake_backends[-1] == ("auto_schedule", ["a", "b"], {"x": 1})


def test_build_entry_points_delegate(fake_backends):
    import te.lang.cce
    import tbe.dsl
    config = {"name": "k", "tensor_list": []}
    te.lang.cce.cce_build_code("S", config)
    tbe.dsl.build(["S1", "S2"], config)
    te.lang.cce.te_schedule.cce_build_code("S3")
    assert fake_backends == [("cce_build_code", "S", config), ("build", ["S1", "S2"], config),
                             ("cce_build_code", "S3", {})]


def _real_pipeline_available():
    try:
        from te_compat.build import load_built  # noqa: F401
        from te_compat.schedule import auto_schedule  # noqa: F401
    except ImportError:
        return False
    return True


@pytest.mark.skipif(not _real_pipeline_available(), reason="te_compat.schedule / te_compat.build not ready")
def test_a_te_lang_cce_op_builds_and_runs(tmp_path, monkeypatch):
    """The seed's add, end to end through the surface (schedule and build by the other parts of te_compat)."""
    monkeypatch.setenv("NPUSIM_KERNEL_META", str(tmp_path / "kernel_meta"))
    import te.lang.cce
    from te import tvm
    from te_compat.build import load_built
    data0 = tvm.placeholder((2, 33), name="data0", dtype="float16")
    data1 = tvm.placeholder((2, 33), name="data1", dtype="float16")
    res = te.lang.cce.vadd(data0, data1)
    with tvm.target.cce():
        sch = te.lang.cce.auto_schedule(res)
    te.lang.cce.cce_build_code(sch, {"name": "surface_add", "tensor_list": [data0, data1, res]})
    a = np.arange(66, dtype=np.float16).reshape(2, 33)
    (out,) = load_built("surface_add").run(a, a)
    np.testing.assert_array_equal(np.asarray(out).reshape(2, 33), a + a)


DYNAMIC_ADD_SOURCE = '''
from impl.util.platform_adapter import tbe, tvm, para_check, shape_util, classify, OpPatternMode
from impl.util.platform_adapter import register_operator, register_operator_compute, tbe_context


@register_operator_compute("Add", op_mode="dynamic", support_fusion=True)
def add_compute(input_x, input_y, output_z, kernel_name="add"):
    shape_x, shape_y, shape_max = shape_util.broadcast_shapes(input_x.shape, input_y.shape,
                                                              param_name_input1="input_x", param_name_input2="input_y")
    input_x = tbe.broadcast(input_x, shape_max)
    input_y = tbe.broadcast(input_y, shape_max)
    res = tbe.vadd(input_x, input_y)
    if res.dtype.lower() != output_z.get("dtype").lower():
        res = tbe.cast_to(res, output_z.get("dtype"))
    return res


@register_operator("Add")
@para_check.check_op_params(para_check.REQUIRED_INPUT, para_check.REQUIRED_INPUT, para_check.REQUIRED_OUTPUT,
                            para_check.KERNEL_NAME)
def add(input_x, input_y, output_z, kernel_name="add"):
    x_dtype = input_x.get("dtype").lower()
    para_check.check_dtype(x_dtype, ("float16", "float32", "int32"), param_name="input_x")
    tbe_context.get_context().add_compile_info("_pattern", "Broadcast")
    ins = classify([input_x, input_y], OpPatternMode.ELEWISE_WITH_BROADCAST, {"ignore_fractal_format": True})
    schedules, tensors = [], []
    for (_input_x, _input_y) in ins:
        with tbe.compute():
            shape_x, shape_y = shape_util.variable_shape([_input_x, _input_y])
            data_x = tvm.placeholder(shape_x, name="data_1", dtype=x_dtype)
            data_y = tvm.placeholder(shape_y, name="data_2", dtype=x_dtype)
            res = add_compute(data_x, data_y, output_z, kernel_name)
            tensors.append((data_x, data_y, res))
        with tvm.target.cce():
            schedule = tbe.auto_schedule(res)
        schedules.append(schedule)
    tbe.build(schedules, {"print_ir": False, "name": kernel_name, "tensor_list": tensors})
'''


def test_a_2022_dynamic_style_op_file_runs_to_build(fake_backends, tensor_dict, tmp_path, monkeypatch):
    """A dynamic add written as CANN 2022 op files are (platform_adapter imports) builds one static graph."""
    pytest.importorskip("te_compat.dsl")
    (tmp_path / "dynamic_add_surface.py").write_text(DYNAMIC_ADD_SOURCE)
    monkeypatch.syspath_prepend(str(tmp_path))
    module = __import__("dynamic_add_surface")
    x, y = tensor_dict([4, 1], "float32"), tensor_dict([6], "float32")
    module.add(x, y, tensor_dict([4, 6], "float32"), kernel_name="dyn_add")
    (_, scheduled, _), (kind, schedules, config) = fake_backends
    (data_x, data_y, res), = config["tensor_list"]
    assert kind == "build" and schedules == ["SCHEDULE"] and scheduled is res and config["name"] == "dyn_add"
    assert [int(d) for d in data_x.shape] == [4, 1] and [int(d) for d in data_y.shape] == [1, 6]
    assert [int(d) for d in res.shape] == [4, 6] and res.dtype == "float32"
    with pytest.raises(TbeArgumentError, match=r"parameter\[input_x\]'s dtype should be one of"):
        module.add(tensor_dict([2], "int8"), tensor_dict([2], "int8"), tensor_dict([2], "int8"))
