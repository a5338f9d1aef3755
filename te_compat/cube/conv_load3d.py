"""A convolution's A operand by ``load3d`` (img2col from L1 into L0A) instead of a staged im2col workspace.

CANN's convolution schedule never writes the im2col matrix: it moves rows of the NC1HWC0 feature map into L1 and
lets ``load3d`` gather each k-step's A fractals from them into L0A.  The cube schedule does the same when it can:

* the matmul runs as a batch over the images and, for a grouped convolution, its extended groups (image-major):
  M = Ho * Wo output pixels of one image, K = (channel block, kernel row, kernel column) fractals of the group's
  channel blocks in the FRACTAL_Z filter's order, the filter (one batch of it per group) read in place as B, and
  the native result ``[N, groups * Co1_g, M, 16]`` is the NC1HWC0 output itself (when Ho * Wo is not a whole
  number of fractals the last fractal row's pixels past the image are computed and not stored), so nothing is
  staged and the tiles spread over the cube cores.  Groups qualify when their channel blocks lie inside the feature
  map and their output blocks tile the output exactly;
* a GM -> L1 load brings ``c1_per_load`` channel blocks of one image's feature map (the load's K fractals are
  those blocks' kernel positions), only the input rows the tile's output pixels read (``band_rows`` at most, clipped
  to the image: rows above and below are padding load3d supplies); two such bands and two B panels fit L1.

Otherwise (groups that do not, a band too large for L1) the schedule keeps the staged im2col
(:mod:`te_compat.cube.staging`).  Each k-step's A panel is ``mt`` load3d instructions, one per fractal row of
output pixels, ``kt`` kernel positions each (repeat mode 0): the zZ panel mmad reads.
"""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

from te_compat.dsl.cube import FRACTAL


@dataclass(frozen=True)
class Load3dConv:
    """The feature map's geometry for load3d and the K fractals of one GM -> L1 load."""

    n_img: int
    c1: int                 # channel blocks of one (extended) group: what the K fractals run over
    h: int
    w: int
    kh: int
    kw: int
    ho: int
    wo: int
    stride_h: int
    stride_w: int
    dilate_h: int
    dilate_w: int
    pad_top: int
    pad_left: int
    pad_right: int
    pad_bottom: int
    c1_per_load: int
    band_rows: int = 0      # input rows a tile's output pixels read at most (0: not yet sized)
    groups: int = 1         # extended groups (the batch's inner index)
    image_c1: int = 0       # channel blocks of the feature map (0: c1)

    def plane_c1(self) -> int:
        """Channel blocks between two images of the feature map."""
        return self.image_c1 or self.c1

    @property
    def positions(self) -> int:
        """Kernel positions of one channel block: K fractals per block."""
        return self.kh * self.kw

    def plane_elems(self, c0: int) -> int:
        """Elements of one load's feature-map band in L1."""
        return self.c1_per_load * self.band_rows * self.w * c0

    def rows_for(self, pixels: int) -> int:
        """Input rows at most that ``pixels`` consecutive output pixels of an image read (within the image)."""
        out_rows = min(-(-(pixels - 1) // self.wo) + 1, self.ho)
        return min((out_rows - 1) * self.stride_h + (self.kh - 1) * self.dilate_h + 1, self.h)


def load3d_graph(graph, chip):
    """(graph with the per-image matmul desc, its geometry without ``c1_per_load``) when the convolution can take
    its A operand by load3d on ``chip`` (see the module docstring), else None."""
    geo = graph.conv
    if geo is None or ("L1", "L0A") not in chip.paths:
        return None
    groups = geo["real_g"]
    if groups > 1 and (groups * geo["cin1_g"] > geo["c1"] or groups * geo["cout1_g"] != geo["co1"]):
        return None                 # a group's channel blocks past the feature map, or output blocks not tiled
    reach_w = (geo["kw"] - 1) * geo["dilate_w"] + 1
    reach_h = (geo["kh"] - 1) * geo["dilate_h"] + 1
    pad_right = max((geo["wo"] - 1) * geo["stride_w"] + reach_w - geo["w"] - geo["pad_left"], 0)
    pad_bottom = max((geo["ho"] - 1) * geo["stride_h"] + reach_h - geo["h"] - geo["pad_top"], 0)
    if (geo["w"] + geo["pad_left"] + pad_right - reach_w) // geo["stride_w"] + 1 != geo["wo"]:
        return None                 # load3d's window walk would not give the output width
    d = graph.desc
    desc = dataclasses.replace(d, m=geo["ho"] * geo["wo"], batch=(geo["n_img"],) + ((groups,) if groups > 1 else ()))
    conv = Load3dConv(geo["n_img"], geo["cin1_g"], geo["h"], geo["w"], geo["kh"], geo["kw"], geo["ho"], geo["wo"],
                      geo["stride_h"], geo["stride_w"], geo["dilate_h"], geo["dilate_w"], geo["pad_top"],
                      geo["pad_left"], pad_right, pad_bottom, 0, groups=groups, image_c1=geo["c1"])
    return dataclasses.replace(graph, desc=desc), conv


def fit_tiling(tiling, conv: Load3dConv, chip, in_bytes: int) -> tuple:
    """(tiling, conv) with loads of whole channel blocks whose feature-map bands fit L1 twice beside two B
    panels, the k-step dividing a load, A never resident; (None, None) when no band fits."""
    frac_in = FRACTAL * chip.block_bytes
    c0 = chip.block_bytes // in_bytes
    band = conv.rows_for(tiling.mt * FRACTAL)
    for c1_per_load in sorted((d for d in range(1, conv.c1 + 1) if conv.c1 % d == 0), reverse=True):
        kl = c1_per_load * conv.positions
        kt = math.gcd(kl, tiling.kt)
        plane = c1_per_load * band * conv.w * c0 * in_bytes
        if 2 * plane + 2 * kl * tiling.ns * frac_in <= chip.l1_bytes:
            fitted = dataclasses.replace(tiling, kt=kt, kl=kl, a_resident=False, first_loads=(), head=())
            return fitted, dataclasses.replace(conv, c1_per_load=c1_per_load, band_rows=band)
    return None, None


__all__ = ["Load3dConv", "fit_tiling", "load3d_graph"]
