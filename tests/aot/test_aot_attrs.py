"""Attributes through AotExtra: every kind, workspaces, kernel data, both std::string ABIs, reg-info values."""
import numpy as np
import pytest

from npusim.aot.library import load_library
from npusim.custom.backends.base import CallAttrs
from npusim.errors import KernelRuntimeError

from aot_test_support import kernel_source, make_backend

LONG_TEXT = "multiply-then-add, with a long value"
ATTRS = CallAttrs(
    names=("use_padding", "padding_index", "scale", "mode", "a_rather_long_attribute_name", "axes", "paddings",
           "grid", "weights"),
    values=(True, 1, 0.7, "mul", LONG_TEXT, [3, -1, 4], [1.0, 2.0], [[1, 2], [3]], [[0.5], [1.5, -2.0]]),
)
SHAPE = (4, 5)


def _checksum(text):
    return sum((i + 1) * ord(c) for i, c in enumerate(text))


def _grid_sum(rows):
    return sum(((i + 1) * 10 + j) * value for i, row in enumerate(rows) for j, value in enumerate(row))


def _run(backend, attrs=ATTRS):
    rng = np.random.default_rng(1)
    x = rng.normal(size=SHAPE).astype(np.float32)
    y = rng.normal(size=SHAPE).astype(np.float32)
    out, report = backend.launch([x, y], attrs, [SHAPE, (24,)], ["float32", "float64"])
    return x, y, out, report


def _check_report(report):
    assert report[0] == 1 and report[1] == 1
    assert report[2] == pytest.approx(0.7)
    assert report[3] == 3 and report[4] == _checksum("mul")
    assert report[5] == len(LONG_TEXT) and report[6] == _checksum(LONG_TEXT)
    assert report[7] == 3 and report[8] == 6
    assert report[9] == 2 and report[10] == 3.0
    assert report[11] == 2 and report[12] == _grid_sum([[1, 2], [3]])
    assert report[13] == 2 and report[14] == pytest.approx(_grid_sum([[0.5], [1.5, -2.0]]))
    assert report[15] == 1 and report[16] == 0  # HasAttr("scale"), HasAttr("no_such_attribute")
    assert report[17] == 2 and report[18] == 2  # Init saw inputs and outputs
    assert report[19] == 2 and report[20] == SHAPE[0] * SHAPE[1] * 4  # WorkSpace() as set by Init


@pytest.mark.parametrize("flags", [
    ("-D_GLIBCXX_USE_CXX11_ABI=1",),
    ("-D_GLIBCXX_USE_CXX11_ABI=0",),
    ("-D_GLIBCXX_USE_CXX11_ABI=1", "-DUSE_FOREIGN_HEADER"),
    ("-D_GLIBCXX_USE_CXX11_ABI=0", "-DUSE_FOREIGN_HEADER"),
], ids=["cxx11-abi", "cow-abi", "cxx11-abi-foreign-header", "cow-abi-foreign-header"])
def test_every_attribute_kind_and_workspace(build_so, flags):
    library = build_so("attr_add.cc", *flags)
    backend = make_backend(f"{library}:CustomAttrAdd")
    assert load_library(library, "test").cxx11_abi == ("-D_GLIBCXX_USE_CXX11_ABI=1" in flags)
    x, y, out, report = _run(backend)
    np.testing.assert_allclose(out, x + y * np.float32(0.7) + 2.0, rtol=1e-6)
    _check_report(report)


def test_auto_compiled_kernel_reads_attributes():
    backend = make_backend(kernel_source("attr_add.cc") + ":CustomAttrAdd")
    x, y, out, report = _run(backend)
    np.testing.assert_allclose(out, x + y * np.float32(0.7) + 2.0, rtol=1e-6)
    _check_report(report)


def test_init_runs_again_when_attributes_change():
    backend = make_backend(kernel_source("attr_add.cc") + ":CustomAttrAdd")
    values = list(ATTRS.values)
    values[2] = 2.0  # scale
    values[0] = False  # use_padding
    x, y, out, report = _run(backend, CallAttrs(ATTRS.names, tuple(values)))
    np.testing.assert_allclose(out, x + y * 2.0, rtol=1e-6)
    x, y, out, _ = _run(backend)
    np.testing.assert_allclose(out, x + y * np.float32(0.7) + 2.0, rtol=1e-6)


def test_reg_info_fixed_values_are_attributes():
    reg_info = {"op_name": "add_with_attr", "attr": [
        {"name": "scale", "paramType": "required", "type": "float"},
        {"name": "paddings", "paramType": "required", "type": "all", "value": [1.0, 2.0]},
        {"name": "use_padding", "paramType": "required", "type": "bool", "value": True},
    ]}
    backend = make_backend(kernel_source("attr_add.cc") + ":CustomAttrAdd", reg_info=reg_info)
    names = ("padding_index", "scale", "mode", "a_rather_long_attribute_name", "axes", "grid", "weights")
    values = (0, 0.5, "add", "x", [], [[1]], [[1.0]])
    x, y, out, report = _run(backend, CallAttrs(names, values))
    np.testing.assert_allclose(out, x + y * 0.5 + 1.0, rtol=1e-6)
    assert report[9] == 2 and report[10] == 3.0


def test_numpy_attribute_values():
    backend = make_backend(kernel_source("attr_add.cc") + ":CustomAttrAdd")
    values = list(ATTRS.values)
    values[0], values[1], values[2] = np.bool_(True), np.int32(1), np.float32(0.7)
    values[5], values[6] = np.array([3, -1, 4]), np.array([1.0, 2.0])
    _, _, _, report = _run(backend, CallAttrs(ATTRS.names, tuple(values)))
    _check_report(report)


def test_missing_attribute_names_it():
    backend = make_backend(kernel_source("failing.cc") + ":CustomMissingAttr", name="MyOp")
    x = np.ones(2, np.float32)
    with pytest.raises(KernelRuntimeError, match=r"MyOp.*CustomMissingAttrInit.*no attribute called 'missing'"):
        backend.launch([x], CallAttrs(), [(2,)], ["float32"])


def test_attribute_of_the_wrong_kind():
    backend = make_backend(kernel_source("failing.cc") + ":CustomWrongKind")
    x = np.ones(2, np.float32)
    with pytest.raises(KernelRuntimeError, match=r"'name' holds a str value, but the kernel reads it as int64_t"):
        backend.launch([x], CallAttrs(("name",), ("text",)), [(2,)], ["float32"])


def test_unsupported_attribute_value_type():
    from npusim.errors import OpTypeError
    backend = make_backend(kernel_source("attr_add.cc") + ":CustomAttrAdd")
    values = list(ATTRS.values)
    values[5] = ["a", "b"]
    with pytest.raises(OpTypeError, match="axes"):
        _run(backend, CallAttrs(ATTRS.names, tuple(values)))


@pytest.mark.parametrize("abi_flag", ["-D_GLIBCXX_USE_CXX11_ABI=0", "-D_GLIBCXX_USE_CXX11_ABI=1"])
def test_wrongly_detected_string_abi_is_refused_not_corrupted(build_so, abi_flag):
    """GetAttrStr checks the caller's string layout and throws rather than overrun the caller's stack."""
    from npusim.aot._bridge import AotKernel
    library = load_library(build_so("attr_add.cc", abi_flag), "test")
    kernel = AotKernel("WrongAbi", library.path, "CustomAttrAdd", library.require("CustomAttrAdd", "t"),
                       library.symbol("CustomAttrAddInit"), 0, not library.cxx11_abi, ())
    x = np.ones(SHAPE, np.float32)
    with pytest.raises(KernelRuntimeError, match="ABI"):
        kernel.launch([x, x], ATTRS, [SHAPE, (24,)], ["float32", "float64"])


def _reg_info(**fixed):
    attrs = [{"name": "scale", "paramType": "required", "type": "float"},
             {"name": "paddings", "paramType": "required", "type": "all"}]
    for attr in attrs:
        if attr["name"] in fixed:
            attr["value"] = fixed[attr["name"]]
    return {"op_name": "scale_pad_add", "inputs": [{"index": 0, "name": "x1"}, {"index": 1, "name": "x2"}],
            "outputs": [{"index": 0, "name": "y"}], "attr": attrs, "target": "CPU"}


@pytest.mark.parametrize("reg_info,attrs", [
    (_reg_info(paddings=[2.0, 2.0]), CallAttrs(("scale",), (0.7,))),
    (_reg_info(scale=0.7, paddings=[2.0, 2.0]), CallAttrs()),
], ids=["call-attr-plus-fixed", "fixed-only"])
def test_mindspore_style_attrs_and_under_declared_workspace(build_so, reg_info, attrs):
    library = build_so("scale_pad_add.cc", "-D_GLIBCXX_USE_CXX11_ABI=0")
    backend = make_backend(f"{library}:CustomScalePadAdd", reg_info=reg_info)
    rng = np.random.default_rng(2)
    x, y = rng.normal(size=(4, 5)).astype(np.float32), rng.normal(size=(4, 5)).astype(np.float32)
    (out,) = backend.launch([x, y], attrs, [(4, 5)], ["float32"])
    np.testing.assert_allclose(out, x + y * 0.7 * 2 + 4, rtol=1e-5, atol=1e-5)
