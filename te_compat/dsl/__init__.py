"""The TBE DSL compute functions of te.lang.cce (2020) and tbe.dsl (2022), as tagged TVM TE computes.

Each function returns a ``tvm.te.Tensor`` built by ``tvm.te.compute`` whose tag and attrs follow the contract in
:mod:`te_compat.graph` and whose body is the exact TVM expression (so TVM/LLVM can compile it too).  Inputs are
auto-cast as TBE does, from the current chip's instruction table (``npusim.sim.current_chip()``); argument errors
raise :class:`npusim.errors.TbeArgumentError` / :class:`npusim.errors.TbeTypeError`.

The functions work on TVM 0.27's own tensors and return them; they also accept the surface wrappers op files hold
(:mod:`te_compat.surface.tvm_objects`), unwrapping their arguments first.  Op files reach them through
``te.lang.cce`` / ``tbe.dsl``, which return surface tensors (:mod:`te_compat.surface.dsl_functions`).

The cube functions are in :mod:`te_compat.dsl.cube` (matmul, batch_matmul), :mod:`te_compat.dsl.gemm` (gemm) and
:mod:`te_compat.dsl.conv` (conv); pooling2d (:mod:`te_compat.dsl.pooling`) runs on the scalar-pipe fallback.
Not here: scheduling (te_compat.schedule) and building
(te_compat.build).
"""
from te_compat.dsl.broadcast import broadcast
from te_compat.dsl.cmpsel import vcmp, vcmpsel, vlogic, vsel
from te_compat.dsl.conv import conv
from te_compat.dsl.cube import batch_matmul, check_conv_shape, matmul
from te_compat.dsl.gemm import gemm
from te_compat.dsl.composite import clip, round_to, vaddrelu, vlrelu, vmod, vsubrelu
from te_compat.dsl.elewise import (vabs, vadd, vand, vdiv, vexp, vlog, vmax, vmin, vmul, vnot, vor, vrec, vrelu,
                                   vrsqrt, vsqrt, vsub)
from te_compat.dsl.pooling import pooling2d
from te_compat.dsl.reduce import reduce_max, reduce_min, reduce_prod, reduce_sum, sum, tuple_sum  # noqa: A004
from te_compat.dsl.rounding import (cast_to, cast_to_round, ceil, floor, round, round_d, round_half_up,  # noqa: A004
                                    trunc)
from te_compat.dsl.scalar import vadds, vaxpy, vmadd, vmaddrelu, vmaxs, vmins, vmla, vmuls
from te_compat.dsl.segment import (inplace_add, inplace_sub, inplace_update, unsorted_segment_max,
                                   unsorted_segment_mean, unsorted_segment_min, unsorted_segment_prod,
                                   unsorted_segment_sum)
from te_compat.dsl.shape_ops import concat, gather, gather_nd, set_value, slice, split, split_compute_com, \
    transpose  # noqa: A004
from te_compat.dsl.support import api_check_support, instr_supports
from te_compat.objects import accepts_wrapped as _accepts_wrapped

__all__ = [
    # unary
    "vabs", "vexp", "vrec", "vrelu", "vnot", "vlog", "vsqrt", "vrsqrt", "vlrelu",
    # binary
    "vadd", "vsub", "vmul", "vdiv", "vmin", "vmax", "vor", "vand", "vmod", "vaddrelu", "vsubrelu",
    # tensor-scalar and ternary
    "vadds", "vmuls", "vmaxs", "vmins", "vaxpy", "vmla", "vmadd", "vmaddrelu",
    # compare / select
    "vcmp", "vsel", "vcmpsel", "vlogic",
    # cast and rounding
    "cast_to", "cast_to_round", "floor", "ceil", "round", "round_d", "round_half_up", "trunc", "round_to", "clip",
    # broadcast and reduce
    "broadcast", "sum", "reduce_sum", "reduce_min", "reduce_max", "reduce_prod", "tuple_sum",
    # segment / inplace / data movement
    "inplace_add", "inplace_sub", "inplace_update", "unsorted_segment_sum", "unsorted_segment_mean",
    "unsorted_segment_prod", "unsorted_segment_min", "unsorted_segment_max", "concat", "split",
    "split_compute_com", "transpose", "gather", "gather_nd", "slice", "set_value",
    # cube
    "matmul", "batch_matmul", "gemm", "conv", "check_conv_shape", "pooling2d",
    # support queries
    "api_check_support", "instr_supports",
]

globals().update({_name: _accepts_wrapped(globals()[_name]) for _name in __all__})
