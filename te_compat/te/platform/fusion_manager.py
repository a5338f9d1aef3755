"""``te.platform.fusion_manager``: ``fusion_manager.register(name)`` (see :mod:`te_compat.surface.fusion`)."""
from te_compat.surface.fusion import FusionManager, fusion_manager  # noqa: F401


def get_fusion_build_cfg() -> dict:
    """Build options of a fused build: none in npusim."""
    return fusion_manager.get_fusion_build_cfg()


__all__ = ["FusionManager", "fusion_manager", "get_fusion_build_cfg"]
