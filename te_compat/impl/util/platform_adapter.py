"""``impl.util.platform_adapter``: the names 2021-2022 op files import from it — ``tbe`` (= ``tbe.dsl``), ``tvm``,
``para_check``, ``shape_util``, ``register_operator``, ``register_operator_compute``, ``classify``,
``OpPatternMode``, ``OpImplMode``, ``tbe_platform``, ``tbe_context``, ``error_manager_vector``, ``operation``,
``in_record``, ``build_config``, ``get_current_build_config``.  (``tik`` is not provided: TIK is a later step.)
"""
from te_compat.surface import errormgr as error_manager
from te_compat.surface import params as _params
from te_compat.surface import platform as _platform
from te_compat.surface.buildcfg import build_config, get_current_build_config  # noqa: F401
from te_compat.surface.classify import OpImplMode, OpPatternMode  # noqa: F401
from te_compat.surface.context import in_record  # noqa: F401
from te_compat.surface.fusion import fusion_manager as tbe_fusion_manager
from te_compat.tbe import dsl as tbe
from te_compat.tbe import tvm  # noqa: F401
from te_compat.tbe.common import buildcfg, context as tbe_context, register as tbe_register  # noqa: F401
from te_compat.tbe.common.platform import platform_info  # noqa: F401
from te_compat.tbe.common.utils import para_check, shape_util  # noqa: F401
from te_compat.tbe.dsl.base import operation  # noqa: F401

error_manager_vector = error_manager
error_manager_cube = error_manager
error_manager_util = error_manager
classify = tbe.classify
register_operator = tbe_register.register_operator


class OpTbeImplMode:
    """TBE implementation mode values."""

    TBE_HIGH_PRECISION = "high_precision"


class TbeContextKey:
    """Keys of op-context additions."""

    PATTERN = "pattern"


def _platform_api_namespace() -> dict:
    names = {name: getattr(_params, name) for name in _params.__all__}
    for name in ("api_check_support", "get_align_factor", "get_bit_len", "get_block_size", "get_soc_spec",
                 "intrinsic_check_support"):
        names[name] = staticmethod(getattr(_platform, name))
    names["fusion_manager"] = tbe_fusion_manager
    names["__doc__"] = "``tbe_platform``: SoC constants and queries."
    return names


#: ``tbe_platform``: the SoC constants (scope names, SOC_VERSION keys ...) and queries (get_soc_spec ...)
PlatformApi = type("PlatformApi", (), _platform_api_namespace())
tbe_platform = PlatformApi


def register_operator_compute(op_type, op_mode="dynamic", support_fusion=False, **kwargs):
    """Decorator of an op compute function (records it; see ``tbe.common.register.register_op_compute``)."""
    return tbe_register.register_op_compute(op_type, op_mode, support_fusion, **kwargs)


def tbe_classify(ins, mode, extra_params=None):
    """``classify`` after giving every concrete input dict without a range the range of its shape."""
    for item in ins:
        if isinstance(item, dict) and not item.get("range") and item.get("shape") is not None:
            if all(isinstance(d, int) and d >= 0 for d in item["shape"]):
                item["range"] = [(d, d) for d in item["shape"]]
    return tbe.classify(ins, mode, extra_params)


__all__ = ["OpImplMode", "OpPatternMode", "OpTbeImplMode", "PlatformApi", "TbeContextKey", "build_config",
           "buildcfg", "classify", "error_manager", "error_manager_cube", "error_manager_util", "error_manager_vector",
           "get_current_build_config", "in_record", "operation", "para_check", "platform_info", "register_operator",
           "register_operator_compute", "shape_util", "tbe", "tbe_classify", "tbe_context", "tbe_platform",
           "tbe_register", "tvm"]
