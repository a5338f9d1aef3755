"""Auto-cast driven by the chip's instruction table (Ascend910 "cloud" vs Ascend310 "mini"), and the support queries."""
import numpy as np
import pytest
from tvm import te

import npusim.sim
import te_compat.dsl as dsl
from te_compat.dsl import support
from te_compat.graph import CAST_TAGS, extract

SHORT = {"int8": "s8", "uint8": "u8", "float16": "f16", "int32": "s32", "float32": "f32", "bool": "u8",
         "int16": "s16", "uint16": "u16"}


def vconv_steps(outs):
    """(key, supported) of every conversion node in the graph of ``outs``."""
    graph = extract(outs)
    steps = []
    for node in graph.nodes:
        if node.tag in CAST_TAGS:
            src = graph.nodes[node.inputs[0]].dtype
            mode = node.attrs["round_mode"]
            key = "deq" if (src, node.dtype) == ("int32", "float16") else \
                f"{SHORT[src]}2{SHORT[node.dtype]}{'' if mode == 'none' else mode}"
            steps.append(key)
    return steps


def assert_single_supported_steps(outs):
    chip = npusim.sim.current_chip()
    for key in vconv_steps(outs):
        assert chip.supports("vconv", key), f"{key} is not a vconv step of {chip.name}"


def dtypes_of(outs):
    return [n.dtype for n in extract(outs).nodes]


def test_vexp_float32_kept_on_910_computed_in_float16_on_310(run):
    x = te.placeholder((4, 33), "float32", name="x")
    a = np.linspace(-2, 2, 132, dtype=np.float32).reshape(4, 33)
    npusim.sim.set_chip("Ascend910")
    cloud = dsl.vexp(x)
    assert dtypes_of(cloud) == ["float32", "float32"]
    npusim.sim.set_chip("Ascend310")
    try:
        mini = dsl.vexp(x)
        assert dtypes_of(mini) == ["float32", "float16", "float16"]
        assert vconv_steps(mini) == ["f322f16"]
    finally:
        npusim.sim.set_chip(None)
    cloud_out, mini_out = run([x], [cloud, mini], [a])
    np.testing.assert_allclose(cloud_out, np.exp(a), rtol=1e-6)
    np.testing.assert_allclose(mini_out.astype(np.float32), np.exp(a.astype(np.float16).astype(np.float32)),
                               rtol=2e-3)


def test_int32_add_stays_int32_but_int32_exp_is_promoted(chip910):
    x = te.placeholder((8,), "int32", name="x")
    assert dtypes_of(dsl.vadd(x, x)) == ["int32", "int32"]
    exp = dsl.vexp(x)
    assert str(exp.dtype) == "float32" and vconv_steps(exp) == ["s322f32"]


def test_int32_promotion_on_310_goes_to_float16_through_deq(chip310):
    x = te.placeholder((8,), "int32", name="x")
    muls = dsl.vmuls(x, 3)  # vmuls has float32, but the 310 has no direct int32 -> float32 step (TBE's rule)
    assert str(muls.dtype) == "float16" and vconv_steps(muls) == ["deq"]
    converted = dsl.cast_to(x, "float32")  # an explicit cast goes through float16
    assert vconv_steps(converted) == ["deq", "f162f32"]
    exp = dsl.vexp(x)
    assert str(exp.dtype) == "float16" and vconv_steps(exp) == ["deq"]


def test_mixed_dtypes_cast_both_to_float32(run, chip910):
    x = te.placeholder((2, 17), "float16", name="x")
    y = te.placeholder((2, 17), "int32", name="y")
    out = dsl.vmul(x, y)
    assert str(out.dtype) == "float32" and sorted(vconv_steps(out)) == ["f162f32", "s322f32"]
    a = np.linspace(-3, 3, 34).astype(np.float16).reshape(2, 17)
    b = np.arange(34, dtype=np.int32).reshape(2, 17)
    np.testing.assert_allclose(run([x, y], [out], [a, b])[0], a.astype(np.float32) * b, rtol=1e-6)


def test_vrelu_is_float16_only_and_vcmp_float32_only_on_cloud(chip910):
    x = te.placeholder((16,), "float32", name="x")
    assert str(dsl.vrelu(x).dtype) == "float16"
    assert dtypes_of(dsl.vcmp(x, x, "lt")) == ["float32", "bool"]
    npusim.sim.set_chip("Ascend310")
    assert dtypes_of(dsl.vcmp(x, 0.5, "lt"))[-1] == "bool"
    assert "float32" not in dtypes_of(dsl.vcmp(x, 0.5, "lt"))[1:]


def test_vdiv_is_an_instruction_on_910_and_mul_of_reciprocal_on_310(run):
    x = te.placeholder((3, 50), "float32", name="x")
    y = te.placeholder((3, 50), "float32", name="y")
    rng = np.random.default_rng(7)
    a = rng.standard_normal((3, 50)).astype(np.float32)
    b = (np.abs(rng.standard_normal((3, 50))) + 0.5).astype(np.float32)
    npusim.sim.set_chip("Ascend910")
    cloud = dsl.vdiv(x, y)
    npusim.sim.set_chip("Ascend310")
    try:
        mini = dsl.vdiv(x, y)
    finally:
        npusim.sim.set_chip(None)
    assert [n.tag for n in extract(cloud).nodes[2:]] == ["elewise_binary_div"]
    assert [n.tag for n in extract(mini).nodes[2:]] == ["elewise_single_rec", "elewise_binary_mul",
                                                        "elewise_single_VS_mul", "elewise_single_VS_add",
                                                        "elewise_binary_mul", "elewise_binary_mul"]
    for result in run([x, y], [cloud, mini], [a, b]):
        np.testing.assert_allclose(result, a / b, rtol=1e-6)


@pytest.mark.parametrize("chip", ["Ascend910", "Ascend310"])
def test_every_emitted_conversion_is_one_supported_vconv_step(chip):
    npusim.sim.set_chip(chip)
    try:
        f32 = te.placeholder((4, 16), "float32", name="f32")
        f16 = te.placeholder((4, 16), "float16", name="f16")
        i32 = te.placeholder((4, 16), "int32", name="i32")
        i8 = te.placeholder((4, 16), "int8", name="i8")
        u8 = te.placeholder((4, 16), "uint8", name="u8")
        outs = [dsl.cast_to(f32, "int32"), dsl.cast_to(f16, "int32"), dsl.cast_to(i32, "float32"),
                dsl.cast_to(i32, "float16"), dsl.cast_to(i8, "float32"), dsl.cast_to(u8, "int32"),
                dsl.cast_to(f32, "uint8"), dsl.cast_to(f16, "int8", False), dsl.floor(f32), dsl.ceil(f16),
                dsl.round(f32), dsl.round_d(f16), dsl.trunc(f32), dsl.vexp(i8), dsl.vmod(f32, f32)]
        for out in outs:
            assert_single_supported_steps(out)
    finally:
        npusim.sim.set_chip(None)


def test_instr_supports_reads_the_current_chip(chip310):
    assert support.instr_supports("vexp", "float16")
    assert not support.instr_supports("vexp", "float32")
    assert not support.instr_supports("vdiv", "float16")
    npusim.sim.set_chip("Ascend910")
    assert support.instr_supports("vexp", "float32") and support.instr_supports("vconv", "f322s32z")


@pytest.mark.parametrize("name", ["te.lang.cce.vexp", "tbe.dsl.vexp", "vexp"])
def test_api_check_support_names_and_chips(name):
    npusim.sim.set_chip("Ascend910")
    try:
        assert dsl.api_check_support(name, "float32") is True
        assert dsl.api_check_support(name, "int32") is False
        npusim.sim.set_chip("Ascend310")
        assert dsl.api_check_support(name, "float16") is True
        assert dsl.api_check_support(name, "float32") is False
    finally:
        npusim.sim.set_chip(None)


def test_api_check_support_other_apis(chip310):
    assert dsl.api_check_support("te.lang.cce.vdiv", "float32")  # composed from vrec * vmul on the mini chip
    assert dsl.api_check_support("te.lang.cce.vmod", "float16")
    assert not dsl.api_check_support("te.lang.cce.vmod", "float32")
    assert dsl.api_check_support("te.lang.cce.cast_to", "f162s32f")
    assert not dsl.api_check_support("te.lang.cce.cast_to", "f322s32f")
    assert dsl.api_check_support("te.lang.cce.cast_to", "float32")
    assert dsl.api_check_support("te.lang.cce.floor", "float32")
    assert not dsl.api_check_support("te.lang.cce.floor", "int32")
    assert dsl.api_check_support("te.lang.cce.sum", "float32")
    assert not dsl.api_check_support("te.lang.cce.vrelu", "float32")
    assert dsl.api_check_support("tbe.dsl.concat", "int8")
    assert dsl.api_check_support("te.lang.cce.vadd") is True
    assert dsl.api_check_support("te.lang.cce.no_such_api", "float16") is False
