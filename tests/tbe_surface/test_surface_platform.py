"""SoC queries follow npusim's chip selection (set_chip, te_set_version, set_current_compile_soc_info)."""
import pytest

from npusim.errors import TbeArgumentError
from npusim.sim import get_chip, set_chip


def test_get_soc_spec_reads_the_current_chip():
    from te.platform.cce_conf import get_soc_spec
    chip = get_chip("Ascend910")
    assert get_soc_spec("SOC_VERSION") == "Ascend910"
    assert get_soc_spec("CORE_NUM") == chip.aicore_num
    assert get_soc_spec("UB_SIZE") == chip.ub_bytes and get_soc_spec("L1_SIZE") == chip.l1_bytes
    assert get_soc_spec("L0C_SIZE") == chip.l0c_bytes and get_soc_spec("AICORE_TYPE") == "AiCore"
    assert get_soc_spec("CUBE_SIZE") == [16, 16, 16] and get_soc_spec("FULL_SOC_VERSION") == "Ascend910"
    with pytest.raises(TbeArgumentError, match="unknown key 'NO_SUCH_KEY'"):
        get_soc_spec("NO_SUCH_KEY")


def test_get_soc_spec_follows_set_chip():
    from tbe.common.platform import get_soc_spec
    set_chip("Ascend310")
    assert get_soc_spec("SOC_VERSION") == "Ascend310"
    assert get_soc_spec("UB_SIZE") == get_chip("Ascend310").ub_bytes
    set_chip("Ascend910B")
    assert get_soc_spec("SHORT_SOC_VERSION") == "Ascend910B"


def test_te_set_version_selects_the_chip_and_limits_cores():
    from npusim.sim import current_chip
    from te.platform import cce_conf
    cce_conf.te_set_version("Ascend310")
    assert current_chip().name == "Ascend310" and cce_conf.get_soc_spec("SOC_VERSION") == "Ascend310"
    cce_conf.te_set_version("Ascend910", core_type="VectorCore", aicore_num=8)
    assert cce_conf.get_soc_spec("CORE_NUM") == 8 and cce_conf.get_soc_spec("AICORE_TYPE") == "VectorCore"
    set_chip("Ascend310")  # a later plain chip switch: the core limit never exceeds the chip
    assert cce_conf.get_soc_spec("CORE_NUM") == get_chip("Ascend310").aicore_num
    cce_conf.te_set_version("Ascend910A")
    assert cce_conf.get_soc_spec("CORE_NUM") == 32 and current_chip().name == "Ascend910"
    with pytest.raises(TbeArgumentError, match="unknown Ascend chip 'Ascend999'"):
        cce_conf.te_set_version("Ascend999")
    with pytest.raises(TbeArgumentError, match="aicore_num 64 is outside 1..32"):
        cce_conf.te_set_version("Ascend910", aicore_num=64)
    with pytest.raises(TbeArgumentError, match="core_type must be one of"):
        cce_conf.te_set_version("Ascend910", core_type="Cube")


def test_set_current_compile_soc_info():
    from tbe.common.platform import get_soc_spec, set_current_compile_soc_info
    from tbe.common.platform.platform_info import get_soc_info
    assert set_current_compile_soc_info("Ascend310P", aicore_num=4) == "success"
    assert get_soc_spec("SOC_VERSION") == "Ascend310P3" and get_soc_spec("CORE_NUM") == 4
    assert get_soc_info()[2] == 4


def test_intrinsic_check_support_follows_the_chip_tables():
    from te.platform.cce_conf import intrinsic_check_support
    assert intrinsic_check_support("Intrinsic_vexp", "float32")
    assert intrinsic_check_support("Intrinsic_vconv", "f322s32r")
    assert intrinsic_check_support("Intrinsic_vln", "fp16")
    assert intrinsic_check_support("Intrinsic_vcmpv_gt", "float32")
    assert intrinsic_check_support("Intrinsic_vadd")
    assert not intrinsic_check_support("Intrinsic_vrelu", "float32")
    assert not intrinsic_check_support("Intrinsic_fix_pipe_l0c2out")
    assert not intrinsic_check_support("Intrinsic_vconv", "bf162f32")
    set_chip("Ascend310")
    assert not intrinsic_check_support("Intrinsic_vexp", "float32")
    assert intrinsic_check_support("Intrinsic_vexp", "float16")
    assert not intrinsic_check_support("Intrinsic_vconv", "f322s32r")


def test_api_check_support_delegates_to_the_dsl_tables():
    pytest.importorskip("te_compat.dsl.support")
    from te import platform as tbe_platform
    from te_compat.dsl.support import api_check_support as dsl_check
    for chip in ("Ascend910", "Ascend310"):
        set_chip(chip)
        for name in ("te.lang.cce.vexp", "tbe.dsl.vexp", "te.lang.cce.vrelu", "te.lang.cce.vadd"):
            for dtype in ("float16", "float32", "int32"):
                assert tbe_platform.cce_conf.api_check_support(name, dtype) == dsl_check(name, dtype)
    set_chip("Ascend910")
    assert tbe_platform.api_check_support("te.lang.cce.vexp", "float32")
    set_chip("Ascend310")
    assert not tbe_platform.api_check_support("te.lang.cce.vexp", "float32")


def test_cce_product_params_and_product_version():
    from te.platform.cce_conf import CceProductParams, getValue
    from topi.cce import util
    params = CceProductParams()
    assert "f322f16" in params.getParams("Intrinsic_vconv")
    assert params.getParams("Intrinsic_vbrcb") == []
    assert params.getParams("Core_num") == 32 and getValue("Unified_Buffer") == get_chip().ub_bytes
    with pytest.raises(TbeArgumentError, match="unknown key 'Bogus'"):
        params.getParams("Bogus")
    assert util.get_product_version() == "cloud" and util.is_cloud_version() and not util.is_mini_version()
    set_chip("Ascend310")
    assert util.get_product_version() == "mini" and util.is_mini_version()
    set_chip("Ascend310P")
    with pytest.raises(TbeArgumentError, match="has no 2020 product name"):
        util.get_product_version()


def test_cce_params_constants():
    from te.platform import cce_params
    from tbe.common import platform
    assert cce_params.scope_ubuf == "local.UB" and cce_params.scope_gm == "global" and cce_params.scope_cbuf == "local.L1"
    assert cce_params.VECTOR_INST_BLOCK_WIDTH == 32 and cce_params.VECTOR_INST_BLOCK_NUM == 8
    assert cce_params.ELEMENTS_VECTOR_OP_FP16 == 128 and cce_params.VECTOR_INST_MAX_REPEAT_TIMES == 255
    assert cce_params.CUBE_MKN["float16"]["mac"] == [16, 16, 16] and cce_params.CUBE_MKN["int8"]["mac"] == [16, 32, 16]
    assert platform.SOC_VERSION == "SOC_VERSION" and platform.ASCEND_910 == "Ascend910"
    assert platform.get_bit_len("float16") == 16 and platform.get_block_size() == 32
    assert platform.get_align_factor("float32") == (8, 4)
    with pytest.raises(TbeArgumentError, match="unknown dtype"):
        platform.get_bit_len("float7")


def test_fusion_manager_register_is_a_pass_through():
    from te.platform.fusion_manager import fusion_manager

    @fusion_manager.register("my_relu")
    def my_relu_compute(x, y, kernel_name="my_relu"):
        return "computed"

    assert my_relu_compute(1, 2) == "computed" and my_relu_compute.__name__ == "my_relu_compute"
    assert fusion_manager.get_op_compute("my_relu") is my_relu_compute and fusion_manager.has_op_compute("my_relu")
    assert fusion_manager.get_build_cfg() == "enable"
    with pytest.raises(TbeArgumentError, match="no compute registered for op 'nope'"):
        fusion_manager.get_op_compute("nope")
    with pytest.raises(TbeArgumentError, match="non-empty op name"):
        fusion_manager.register("")
    with pytest.raises(TbeArgumentError, match="is not one of"):
        fusion_manager.set_build_cfg("maybe")
