"""The 2022 dynamic-shape style (classify, tbe.compute(), variable_shape, op contexts, registration) in static
mode: concrete shapes in, one combination of concrete shapes out."""
import pytest

from npusim.errors import TbeArgumentError, TbeTypeError, UnsupportedError


def test_elewise_with_broadcast_classify_and_variable_shape(tensor_dict):
    import tbe
    from tbe import dsl
    from tbe.common.utils import shape_util
    from tbe.dsl.classify import OpPatternMode
    x, y = tensor_dict([4, 1], "float32"), tensor_dict([6], "float32")
    ins = dsl.classify([x, y], OpPatternMode.ELEWISE_WITH_BROADCAST, {"ignore_fractal_format": True})
    assert len(ins) == 1
    shapes = []
    for (_x, _y) in ins:
        with tbe.compute() as compute:
            shapes.append(shape_util.variable_shape([_x, _y]))
            assert compute is tbe.dsl.base.operation.current_compute()
    assert shapes == [[[4, 1], [1, 6]]]
    assert x["shape"] == [4, 1] and y["shape"] == [6]  # the caller's dicts are not modified
    assert ins[0][1]["dtype"] == "float32" and ins[0][1]["range"] == [(1, 1), (6, 6)]
    with pytest.raises(TbeArgumentError, match="could not be broadcast"):
        dsl.classify([tensor_dict([2, 3]), tensor_dict([4])], OpPatternMode.ELEWISE_WITH_BROADCAST)


def test_elewise_classify_keeps_shapes(tensor_dict):
    from impl.util.platform_adapter import OpPatternMode, classify, shape_util
    ins = classify([tensor_dict([2, 3]), tensor_dict([2, 3])], OpPatternMode.ELEWISE)
    assert shape_util.variable_shape(ins[0]) == [[2, 3], [2, 3]]


def test_reduce_classify_normalises_axes(tensor_dict):
    from tbe.common.utils import shape_util
    from tbe.dsl import classify
    x = dict(tensor_dict([3, 4, 5]), rel_pos_to_reduce="before")
    axes = {"shape": [2], "value": [-1, 0], "rel_pos_to_reduce": "axis"}
    ins = classify([x, axes], "reduce", {"keepdims": True})
    (_x, _axes), = ins
    assert _axes["value"] == [0, 2] and _axes["shape"] == [2]
    assert shape_util.variable_shape([_x, _axes], op_mode="reduce") == [[3, 4, 5], [2]]
    (_, from_const), = classify([x, {"shape": [1], "const_value": [1]}], "reduce")
    assert from_const["value"] == [1]
    (_, from_list), = classify([x, [-2]], "reduce")
    assert from_list["value"] == [1]
    with pytest.raises(TbeArgumentError, match="needs the reduce axes"):
        classify([x, {"shape": [1], "rel_pos_to_reduce": "axis"}], "reduce")
    with pytest.raises(TbeArgumentError, match="Axis must between"):
        classify([x, [3]], "reduce")


def test_reduce_classify_shapes_after_inputs_and_reduce_all(tensor_dict):
    from tbe.common.utils import shape_util
    from tbe.dsl import classify
    x = dict(tensor_dict([3, 4, 5]), rel_pos_to_reduce="before")
    after = dict(tensor_dict([-1, -1, -1]), rel_pos_to_reduce="after")
    axes = {"shape": [1], "value": [1], "rel_pos_to_reduce": "axis"}
    (_x, _after, _axes), = classify([x, after, axes], "reduce", {"keepdims": True})
    assert _after["shape"] == [3, 1, 5] and _axes["value"] == [1]
    assert shape_util.variable_shape([_x, _after, _axes], op_mode="reduce") == [[3, 4, 5], [3, 1, 5], [1]]
    (_, dropped, _), = classify([x, after, axes], "reduce", {"keepdims": False})
    assert dropped["shape"] == [3, 5]
    every = {"shape": [-1], "value": [], "rel_pos_to_reduce": "axis"}
    (_, _all), = classify([x, every], "reduce", {"reduce_axes_type": "all", "keepdims": False})
    assert _all["value"] == [0, 1, 2] and _all["shape"] == [3]
    with pytest.raises(TbeArgumentError, match="has shape"):
        classify([x, dict(tensor_dict([7, 7]), rel_pos_to_reduce="after"), axes], "reduce", {"keepdims": True})
    with pytest.raises(TbeTypeError, match="keepdims"):
        classify([x, axes], "reduce", {"keepdims": 1})


def test_unknown_dims_need_a_pinning_range(tensor_dict):
    from tbe.common.utils import shape_util
    from tbe.dsl import classify
    pinned = dict(tensor_dict([-1, 4]), range=[(3, 3), (4, 4)])
    assert shape_util.variable_shape(classify([pinned], "elewise")[0]) == [[3, 4]]
    for bad in (dict(tensor_dict([-1, 4]), range=[(1, None), (4, 4)]), tensor_dict([-1, 4]), tensor_dict([-2])):
        with pytest.raises(TbeArgumentError, match="npusim compiles each op per concrete shape"):
            classify([bad], "elewise")
        with pytest.raises(TbeArgumentError, match="npusim compiles each op per concrete shape"):
            shape_util.variable_shape([bad])


def test_classify_argument_errors(tensor_dict):
    from tbe.dsl import classify
    with pytest.raises(UnsupportedError, match="classify mode 'norm' is not supported"):
        classify([tensor_dict([2])], "norm")
    with pytest.raises(TbeArgumentError, match="non-empty list"):
        classify([], "elewise")
    with pytest.raises(TbeTypeError, match="must be a tensor dict"):
        classify([[2, 3]], "elewise")


def test_tbe_classify_adds_ranges(tensor_dict):
    from impl.util.platform_adapter import tbe_classify
    x = tensor_dict([2, 3])
    assert tbe_classify([x], "elewise")[0][0]["shape"] == [2, 3] and x["range"] == [(2, 2), (3, 3)]


def test_op_context_and_compile_info():
    from tbe.common.context import op_context
    from tbe.dsl.base import operation
    assert op_context.get_context() is None and not operation.in_dynamic() and not operation.in_record()
    with pytest.raises(TbeArgumentError, match="needs an active op context"):
        operation.add_compile_info("_pattern", "ElemWise")
    with op_context.OpContext("dynamic") as context:
        assert op_context.get_context() is context and operation.get_context() is context
        assert context.get_op_mode() == "dynamic" and operation.in_dynamic()
        operation.add_compile_info("_pattern", "ElemWise")
        context.add_addition("k", 1)
        assert context.get_compile_info("_pattern") == "ElemWise" and context.get_addition("k") == 1
        assert operation.get_compile_info() == {"_pattern": "ElemWise"}
        with operation.static() as inner:
            assert op_context.get_context() is inner
        assert op_context.get_context() is context
    assert op_context.get_context() is None
    with pytest.raises(TbeArgumentError, match="mode must be one of"):
        op_context.OpContext("sometimes")


def test_op_info():
    from tbe.common.context import op_context
    from tbe.common.context.op_info import OpInfo
    with op_context.OpContext() as context:
        info = OpInfo("add_1", "Add")
        info.inputs = [{"shape": [2]}]
        context.add_op_info(info)
        assert context.get_op_info()[0].op_type == "Add" and context.get_op_info("add_1") is info
        assert context.get_op_info("nope") is None


def test_register_operator_records_and_provides_an_op_context(tensor_dict):
    from tbe.common.context import op_context
    from tbe.common.register import (register_op_compute, register_operator, registered_computes,
                                     registered_operators)

    @register_op_compute("SurfaceTestOp", op_mode="dynamic", support_fusion=True)
    def surface_compute(x, y):
        return "compute"

    @register_operator("SurfaceTestOp")
    def surface_op(x, y, kernel_name="surface_op"):
        return op_context.get_context()

    context = surface_op(tensor_dict([2]), tensor_dict([2]))
    assert context is not None and context.get_op_type() == "SurfaceTestOp" and context.get_op_mode() == "static"
    assert op_context.get_context() is None
    with op_context.OpContext("dynamic") as outer:
        assert surface_op(tensor_dict([2]), tensor_dict([2])) is outer
    assert surface_compute(1, 2) == "compute"
    assert registered_computes()["SurfaceTestOp"] is surface_compute
    assert registered_operators()["SurfaceTestOp"].__name__ == "surface_op"
    with pytest.raises(TbeArgumentError, match="non-empty op type"):
        register_operator(None)


def test_var_creates_tvm_vars_recorded_in_the_compute():
    import tbe
    with tbe.compute() as compute:
        n = tbe.dsl.var("n", bound=(1, 100))
    assert str(n.dtype) == "int32" and n.name == "n"
    assert compute.get_vars()[0][1] == (1, 100)
    with pytest.raises(TbeArgumentError, match="non-empty name"):
        tbe.var("")
