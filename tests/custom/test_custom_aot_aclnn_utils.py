"""mindspore.ops.operations._custom_ops_utils: CustomCodeGenerator (the aclnn callback MindSpore compiles) and
CustomInfoGenerator (aclnn API types and reg info), from CANN-style files and from npusim's operator facts, in the
style of MindSpore's test_custom_utils."""
import json
import textwrap
import warnings

import pytest

from mindspore.ops import CustomRegOp, DataType
from mindspore.ops.operations._custom_ops_utils import CustomCodeGenerator, CustomInfoGenerator


def squashed(text):
    return "".join(text.split())


def argmin_reg_info():
    return CustomRegOp("aclnnArgMin").input(0, "x", "required").attr("dim", "required", "int") \
        .attr("keep_dim", "required", "bool").output(0, "z", "required") \
        .dtype_format(DataType.F16_Default, DataType.F16_Default).target("Ascend").get_op_info()


def test_callback_for_argmin_casts_each_parameter_and_calls_through_the_pointer():
    code = CustomCodeGenerator().generate_callback_by_reg_info("aclnnArgMin", argmin_reg_info())
    assert code.lstrip().startswith('#include <vector>\n#include "acl/acl_base.h"')
    for line in ('extern "C" int aclnnArgMinGetWorkSpaceSize(void *func_ptr, std::vector<void *> inputs, '
                 "std::vector<void *> outputs, uint64_t *workspace_size, aclOpExecutor **executor) {",
                 "using FuncType = int (*)(aclTensor*, int64_t, bool, aclTensor*, uint64_t *, aclOpExecutor **);",
                 "int64_t* input1 = static_cast<int64_t*>(inputs[1]);",
                 "bool* input2 = static_cast<bool*>(inputs[2]);",
                 "aclTensor* output0 = static_cast<aclTensor*>(outputs[0]);",
                 "return func(input0, *input1, *input2, output0, workspace_size, executor);"):
        assert squashed(line) in squashed(code), line


def test_callback_for_batch_norm_with_three_outputs():
    reg = CustomRegOp("aclnnBatchNorm")
    for index, name in enumerate(("x", "scale", "bias", "mean", "var")):
        reg.input(index, name, "required")
    reg.attr("training", "required", "bool").attr("momentum", "required", "float").attr("eps", "required", "float")
    for index, name in enumerate(("output", "saved_mean", "saved_variance")):
        reg.output(index, name, "required")
    code = CustomCodeGenerator().generate_callback_by_reg_info("aclnnBatchNorm", reg.get_op_info())
    assert squashed("int (*)(aclTensor*, aclTensor*, aclTensor*, aclTensor*, aclTensor*, bool, float, float, "
                    "aclTensor*, aclTensor*, aclTensor*, uint64_t *, aclOpExecutor **)") in squashed(code)
    assert squashed("func(input0, input1, input2, input3, input4, *input5, *input6, *input7, output0, output1, "
                    "output2, workspace_size, executor)") in squashed(code)


def test_by_types_uses_the_api_types_and_equals_by_reg_info_when_they_agree():
    generator, reg = CustomCodeGenerator(), argmin_reg_info()
    types = generator.get_api_types_by_reg_info(reg)
    assert types == ["aclTensor*", "int64_t", "bool", "aclTensor*", "uint64_t*", "aclOpExecutor**"]
    assert generator.generate_callback_by_types("aclnnArgMin", reg, types) == \
        generator.generate_callback_by_reg_info("aclnnArgMin", reg)
    with pytest.warns(UserWarning, match="not same with function prototype"):
        code = generator.generate_callback_by_types("aclnnArgMin", reg, ["aclTensor*", "double"] + types[2:])
    assert squashed("double* input1 = static_cast<double*>(inputs[1]);") in squashed(code)


@pytest.mark.parametrize("types, message", [
    (["aclTensor*", "uint64_t*", "aclOpExecutor**"], "Reg info input size: 6 is not equal to aclnn api input size 3"),
    (["aclTensor*", "char*", "bool", "aclTensor*", "uint64_t*", "aclOpExecutor**"], "Unsupported input type: char*"),
    (["aclTensor*", "int64_t", "bool", "aclScalar*", "uint64_t*", "aclOpExecutor**"],
     "Unsupported output type: aclScalar*"),
])
def test_by_types_errors(types, message):
    with pytest.raises(RuntimeError, match=message.replace("*", r"\*")), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the type mismatches are warned about before the error
        CustomCodeGenerator().generate_callback_by_types("aclnnArgMin", argmin_reg_info(), types)


def test_an_attribute_type_without_a_cxx_type():
    reg = CustomRegOp("X").input(0, "x").attr("name", "required", "str").output(0, "y").get_op_info()
    with pytest.raises(RuntimeError, match="Unsupported type: str"):
        CustomCodeGenerator().generate_callback_by_reg_info("X", reg)


def test_api_types_from_npusim_operator_facts():
    """Without CANN files, npusim's aclnn parameter lists answer (MindSpore's test_info_generator_add expects the
    same list from aclnn_add.h)."""
    assert CustomInfoGenerator("Add").get_aclnn_api_types() == \
        ["aclTensor*", "aclTensor*", "aclScalar*", "aclTensor*", "uint64_t*", "aclOpExecutor**"]
    assert CustomInfoGenerator("aclnnArgMin").get_aclnn_api_types() == \
        ["aclTensor*", "int64_t", "bool", "aclTensor*", "uint64_t*", "aclOpExecutor**"]
    assert CustomInfoGenerator("Cat").get_aclnn_api_types()[:2] == ["aclTensorList*", "int64_t"]
    with pytest.warns(UserWarning, match="aclnn_max_pool_custom.h"):
        assert CustomInfoGenerator("MaxPoolCustom").get_aclnn_api_types() == []


def test_reg_info_from_npusim_operator_facts_feeds_the_code_generator():
    reg = CustomInfoGenerator("Add").generate_custom_reg_op()
    assert [e["name"] for e in reg["inputs"]] == ["self", "other"] and reg["outputs"][0]["name"] == "out"
    assert reg["attr"] == [{"name": "alpha", "paramType": "required", "type": "number"}]
    assert (("float16", "DefaultFormat"),) * 3 in reg["dtype_format"] and reg["target"] == "Ascend"
    api_types = CustomInfoGenerator("Add").get_aclnn_api_types()
    generator = CustomCodeGenerator()
    assert generator.generate_callback_by_types("Add", reg, api_types) == \
        generator.generate_callback_by_reg_info("Add", reg)
    split = CustomInfoGenerator("aclnnSplitTensor").generate_custom_reg_op()
    assert split["outputs"] == [{"index": 0, "name": "out", "paramType": "dynamic"}]
    with pytest.raises(RuntimeError, match=r"Cannot find operator \[NoSuchOp\]"):
        CustomInfoGenerator("NoSuchOp").generate_custom_reg_op()


@pytest.fixture
def custom_opp(tmp_path, monkeypatch):
    """A custom operator package as CANN's build installs it: op_api/include header and the ops-info JSON."""
    from te_compat.surface.platform import get_soc_spec
    soc = str(get_soc_spec("SHORT_SOC_VERSION")).lower()
    root = tmp_path / "vendors" / "customize"
    (root / "op_api" / "include").mkdir(parents=True)
    (root / "op_api" / "include" / "aclnn_abs_grad_custom.h").write_text(textwrap.dedent("""
        #include "aclnn/acl_meta.h"
        /* aclnnAbsGradCustomGetWorkspaceSize is documented here, but declared below */
        __attribute__((visibility("default")))
        aclnnStatus aclnnAbsGradCustomGetWorkspaceSize(
            const aclTensor *y,
            const aclTensor *dy,
            int64_t mode,
            const aclIntArray *dims,
            const aclTensor *z,
            uint64_t *workspaceSize,
            aclOpExecutor **executor);
        aclnnStatus aclnnAbsGradCustom(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                       aclrtStream stream);
    """))
    config = root / "op_impl" / "ai_core" / "tbe" / "config" / soc
    config.mkdir(parents=True)
    ops_info = {"AbsGradCustom": {
        "input0": {"name": "y", "paramType": "required", "dtype": "float16,float", "format": "NC1HWC0,ND"},
        "input1": {"name": "dy", "paramType": "required", "dtype": "float16,float", "format": "NC1HWC0,ND"},
        "output0": {"name": "z", "paramType": "required", "dtype": "float16,float", "format": "NC1HWC0,ND"},
        "attr": {"list": "mode,dims"},
        "attr_mode": {"paramType": "optional", "type": "int", "value": "all"},
        "attr_dims": {"paramType": "required", "type": "listInt"}}}
    (config / f"aic-{soc}-ops-info.json").write_text(json.dumps(ops_info))
    monkeypatch.setenv("ASCEND_CUSTOM_OPP_PATH", f"{tmp_path / 'missing'}:{root}")
    return root


def test_a_custom_operator_package_is_read_as_mindspore_reads_it(custom_opp):
    generator = CustomInfoGenerator("AbsGradCustom")
    assert generator.get_aclnn_api_types() == ["aclTensor*", "aclTensor*", "int64_t", "aclIntArray*", "aclTensor*",
                                               "uint64_t*", "aclOpExecutor**"]
    reg = generator.generate_custom_reg_op()
    expected = CustomRegOp("AbsGradCustom").input(0, "y", "required").input(1, "dy", "required") \
        .output(0, "z", "required").attr("mode", "optional", "int", "all").attr("dims", "required", "listInt", "") \
        .dtype_format(DataType.F16_5HD, DataType.F16_5HD, DataType.F16_5HD) \
        .dtype_format(DataType.F32_Default, DataType.F32_Default, DataType.F32_Default) \
        .target("Ascend").get_op_info()
    assert reg == expected
    assert generator.target_json_path.endswith(".json")
    code = CustomCodeGenerator().generate_callback_by_types("aclnnAbsGradCustom", reg,
                                                            generator.get_aclnn_api_types())
    assert squashed("aclIntArray* input3 = static_cast<aclIntArray*>(inputs[3]);") in squashed(code)
