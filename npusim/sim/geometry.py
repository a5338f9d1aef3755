"""Instruction-field widths of the DaVinci ISA: limits set by how an instruction encodes an operand, the same on
every modelled chip.

Numbers that differ between chips (block and repeat bytes, the largest repeat_times, buffer sizes, the cube's
fractal edges, event ids) are not here: they are fields of :class:`npusim.sim.chip.Chip`, read from the chip YAMLs
with their sources.  Together the two are the only places npusim states a hardware number
(tests/architecture/test_hardware_numbers.py checks it).

Sources: shared/reference/tik.md (TIK's operand ranges, "Data movement" and "Vector"), shared/reference/ascend-hw.md
("ISA facts"), the TIK API reference's operand ranges where those files give none.
"""
from __future__ import annotations

# -- data_move (tik.md "Data movement": sid in [0, 15], nburst in [1, 4095], burst in [1, 65535], gaps in [0, 65535])
DATA_MOVE_SID_MAX = 15            # sid: the 4-bit stream-id field
DATA_MOVE_NBURST_MAX = 4095       # nburst: the 12-bit burst-count field
DATA_MOVE_BURST_MAX = 65535       # burst: the 16-bit burst-length field, in blocks
DATA_MOVE_GAP_MAX = 65535         # src_stride / dst_stride: the 16-bit gap fields (tail to next head), in blocks

# -- vector instructions
VECTOR_STRIDE_MAX = 255           # blk_stride / rep_stride: 8-bit fields of the v100 vector instructions (TIK API
#                                   reference: [0, 255]), in blocks
REDUCE_STRIDE_MAX = 65535         # vcadd / vcmax / vcmin dst_rep_stride, src_blk_stride, src_rep_stride: 16-bit
#                                   fields (TIK API reference vcadd: [0, 65535])
MASK_WORD_BITS = 64               # one word of the mask register: mask_l holds lanes 0-63, mask_h lanes 64-127
#                                   (tik.md "Vector": bit l of mask_l = lane l; mask_h = lanes 64-127)
MASK_BITS = 2 * MASK_WORD_BITS    # the mask register: at most 128 lanes per repeat, whatever the vector width
#                                   (ascend-hw.md ISA facts: "mask up to 128 (16-bit) / 64 (32-bit) lanes")

# -- cube
MMAD_DIM_MAX = 4095               # mmad matrix_m / matrix_k / matrix_n: 12-bit fields (TIK API reference mmad:
#                                   [0, 4095])
LOAD2D_INDEX_MAX = 65535          # load2d start_index (base fractal id): a 16-bit field (CCE intrinsic load2d:
#                                   baseIdx in [0, 2**16-1])
LOAD2D_REPEAT_MAX = 255           # load2d repeat: an 8-bit field (CCE intrinsic load2d: repeat in [0, 2**8-1])
LOAD2D_STRIDE_MAX = 65535         # load2d src_stride, in fractals: a 16-bit field (CCE intrinsic load2d)
LOAD3D_REPEAT_MAX = 255           # load3d (img2col) repeat_time: an 8-bit field (TIK load3dv1: [1, 255])

# -- kernel launch
BLOCK_DIM_MAX = 65535             # blockDim of a launch: a 16-bit field (CANN kernel launch: blockDim in [1, 65535])

__all__ = ["BLOCK_DIM_MAX", "DATA_MOVE_BURST_MAX", "DATA_MOVE_GAP_MAX", "DATA_MOVE_NBURST_MAX", "DATA_MOVE_SID_MAX",
           "LOAD2D_INDEX_MAX", "LOAD2D_REPEAT_MAX", "LOAD2D_STRIDE_MAX", "LOAD3D_REPEAT_MAX", "MASK_BITS",
           "MASK_WORD_BITS", "MMAD_DIM_MAX", "REDUCE_STRIDE_MAX", "VECTOR_STRIDE_MAX"]
