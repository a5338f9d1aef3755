"""``CubeSchedule``: what ``auto_schedule`` returns for a graph with a matmul node; ``lower`` writes the kernel.

The kernel's parameters are the ``tensor_list`` tensors in order, then its workspaces.  Operands already in the
cube's native layouts (:mod:`te_compat.cube.staging`: A as FRACTAL_NZ of A, B as FRACTAL_NZ of B^T, the output
FRACTAL_NZ, the bias in the accumulator dtype of a whole number of fractals) are read and written in place and the
tiles are spread over the chip's cube cores.  Other layouts (ND, the other transposes, odd bias) are converted by
scalar programs into workspaces first (and the output from one after); such a kernel runs on one core, because
its conversions cover whole tensors.  gemm's C is native as the output's FRACTAL_NZ (an ND one is staged the same
way); a grouped convolution is a batch of matmuls, one per extended group (its filter's groups are consecutive
batches of the native B layout).  An ungrouped convolution whose feature-map planes fit L1 is a batch over its
images whose A load3d gathers from the feature map in L1 (:mod:`te_compat.cube.conv_load3d`): nothing staged.
"""
from __future__ import annotations

from npusim.errors.tbe import TbeScheduleError
from npusim.sim import KernelBuilder
from npusim.sim.dtypes import itemsize
from te_compat.cube.conv_load3d import fit_tiling, load3d_graph
from te_compat.cube.graph import read_graph
from te_compat.cube.fixpipe_out import fixpipe_out
from te_compat.cube.kernel import CubeWriter
from te_compat.cube.gemm_epilogue import GemmEpilogue
from te_compat.cube.staging import (bias_program, conv_output_program, gemm_c_program, im2col_program,
                                    operand_program, output_program)
from te_compat.cube.tiling import choose_tiling
from te_compat.dsl.cube import FRACTAL, NZ, ceil_div
from te_compat.objects import raw_tree


class CubeSchedule:
    """The schedule of a cube graph (``classification`` "matmul"); ``tiling``: the plan of the last lowering."""

    classification = "matmul"
    fallback_reason = None

    def __init__(self, outs, runtime, option=None):
        outs = raw_tree(outs)
        self.outputs = list(outs) if isinstance(outs, (list, tuple)) else [outs]
        self.runtime, self.option = runtime, option
        self.graph = read_graph(self.outputs, "auto_schedule")
        self.tiling = None

    def lower(self, tensor_list, name: str, runtime=None, load3d: bool = True):
        """The npusim Kernel of this matmul for ``runtime``'s target (None: auto_schedule's); ``load3d`` False: a
        convolution's A by the staged im2col even where load3d could gather it."""
        tensor_list = list(raw_tree(tensor_list))
        target = (runtime or self.runtime).target
        g, d = self.graph, self.graph.desc
        conv = None
        by_load3d = load3d_graph(g, target.chip) if load3d else None    # a conv's A gathered by load3d
        if by_load3d is not None:
            g, conv = by_load3d
            d = g.desc
        kb = KernelBuilder(name, chip=target.chip)
        params = {}
        for position, tensor in enumerate(tensor_list):
            params[position] = kb.tensor(str(tensor.dtype), tuple(int(x) for x in tensor.shape), "GM",
                                         _param_name(tensor, position))
        a, b, out = (_find(tensor_list, params, x, name) for x in (g.tensor_a, g.tensor_b, g.output))
        bias = _find(tensor_list, params, g.tensor_bias, name) if g.tensor_bias is not None else None
        n1 = ceil_div(d.n, FRACTAL)
        native = self._native(bias, target.chip, g, conv is not None)
        groups, gemm = native["groups"], g.gemm
        c_tensor = gemm.tensor_c if gemm is not None else None
        c_bytes = GemmEpilogue.ub_bytes_per_elem(None if c_tensor is None else str(c_tensor.dtype), d.acc_dtype)
        cores = 1 if native["staged"] else min(target.core_num, target.chip.cube_core_num)
        cast_only = bias is None and gemm is None and not g.epilogue and d.out_dtype == "float16"
        tiling = choose_tiling(d, target.chip, cores, c_bytes, fixpipe_out(g, target.chip) is not None, cast_only)
        if conv is not None:
            tiling, conv = fit_tiling(tiling, conv, target.chip, itemsize(d.in_dtype))
            if tiling is None:         # no feature-map plane fits L1: the staged im2col
                return self.lower(tensor_list, name, runtime, load3d=False)
        self.tiling = tiling
        if conv is not None:
            a_src = a                   # the NC1HWC0 feature map, gathered by load3d
        elif g.conv is not None:
            a_src = self._stage_im2col(kb, a, g, tiling)
        else:
            a_src = a if native["a"] else self._stage_operand(kb, a, g.tensor_a, d, True, tiling)
        b_src = b if native["b"] else self._stage_operand(kb, b, g.tensor_b, d, False, tiling)
        # a grouped conv's groups take consecutive runs of n1 fractals of its [Cout] bias
        bias_src = bias if native["bias"] else self._stage_bias(
            kb, bias, g.tensor_bias, d, n1 * groups, d.n if groups == 1 else int(g.tensor_bias.shape[-1]))
        out_dst = out if native["out"] else kb.tensor(d.out_dtype if not g.epilogue else str(g.output.dtype),
                                                   (*d.batch, n1, tiling.m1 * FRACTAL, FRACTAL), "GM", "ws_out",
                                                   is_workspace=True)
        gemm_handles = self._gemm_handles(kb, tensor_list, params, name, tiling) if gemm is not None else None
        if native["staged"]:
            kb.set_flag("S", "MTE2", 0)
            kb.wait_flag("S", "MTE2", 0)
        writer = CubeWriter(kb, target.chip, g, tiling, {"a": a_src, "b": b_src}, out_dst, bias_src,
                            native["b_batched"] or not d.batch, gemm_handles, conv)
        writer.emit()
        if not native["out"]:
            store_pipe = "MTE3" if writer.fixpipe is None else "FIX"      # the pipe that wrote out_dst
            kb.set_flag(store_pipe, "S", 0)
            kb.wait_flag(store_pipe, "S", 0)
            out_shape = tuple(int(x) for x in g.output.shape)
            func = conv_output_program(tuple(out_dst.shape), out_shape, str(g.output.dtype), g.conv) \
                if g.conv is not None else output_program(tuple(out_dst.shape), out_shape, d.format_out,
                                                          str(g.output.dtype), d.batch, d.m, d.n)
            _call(kb, func, (out_dst, out))
        return kb.build(inputs=[params[i] for i in range(len(tensor_list))], outputs=[],
                        block_dim=tiling.block_dim, check=runtime or self.runtime)

    @staticmethod
    def _stage_operand(kb, handle, tensor, d, is_a: bool, tiling):
        rows = d.m if is_a else d.n
        padded_rows = (tiling.m1 if is_a else tiling.n1) * FRACTAL
        k0 = tiling.k0
        padded_k = tiling.k1 * k0
        fmt = d.format_a if is_a else d.format_b
        transposed = d.trans_a if is_a else not d.trans_b
        batched = len(tensor.shape) > (4 if fmt == NZ else 2)
        batch = d.batch if (is_a or batched) else ()
        func = operand_program(tuple(int(x) for x in tensor.shape), fmt, transposed, rows, d.k, padded_rows,
                               padded_k, k0, d.in_dtype, batch, batched)
        ws = kb.tensor(d.in_dtype, (*batch, padded_k // k0, padded_rows, k0), "GM",
                       f"ws_{'a' if is_a else 'b'}", is_workspace=True)
        _call(kb, func, (handle, ws))
        return ws

    def _native(self, bias, chip, g=None, load3d: bool = False) -> dict:
        """Which operands are already in the cube's native layouts (read in place), whether B has batch dims,
        the conv's group count, and whether anything is ``staged`` (converted by scalar programs: one core).
        ``load3d``: a convolution whose A load3d gathers and whose NC1HWC0 result is the native one
        (:mod:`te_compat.cube.conv_load3d`)."""
        g = g or self.graph
        d = g.desc
        n1, k1 = ceil_div(d.n, FRACTAL), ceil_div(d.k, chip.block_bytes // itemsize(d.in_dtype))
        groups = g.conv["real_g"] if g.conv is not None else 1     # a grouped conv: one matmul per group
        flags = {"groups": groups, "out": d.format_out == NZ or load3d,
                 "a": load3d or g.conv is None and d.format_a == NZ and not d.trans_a and
                 _fractals(g.tensor_a) == (k1, ceil_div(d.m, FRACTAL)),
                 "b": d.format_b == NZ and d.trans_b and _fractals(g.tensor_b) == (groups * k1, n1),
                 "b_batched": len(g.tensor_b.shape) > (4 if d.format_b == NZ else 2) or groups > 1,
                 "bias": bias is None or (groups == 1 and bias.dtype in (d.acc_dtype, d.in_dtype) and
                                          bias.size == n1 * FRACTAL)}
        c_native = g.gemm is None or g.gemm.tensor_c is None or g.gemm.c_format == NZ
        flags["staged"] = not (flags["a"] and flags["b"] and flags["out"] and flags["bias"] and c_native and
                               (not d.batch or flags["b_batched"] or load3d))   # load3d: one filter, every image
        return flags

    def _gemm_handles(self, kb, tensor_list, params, name: str, tiling) -> dict:
        """GM handles of gemm's alpha / beta (None when a float) and of C in the native tile layout (staged into a
        workspace by a scalar program when it is ND)."""
        gemm, d = self.graph.gemm, self.graph.desc
        handles = {key: None if isinstance(value, float) else _find(tensor_list, params, value, name)
                   for key, value in (("alpha", gemm.alpha), ("beta", gemm.beta))}
        if gemm.tensor_c is None:
            return handles
        c = _find(tensor_list, params, gemm.tensor_c, name)
        if gemm.c_format == NZ:
            handles["c"] = c
            return handles
        dtype = str(gemm.tensor_c.dtype)
        ws_shape = (*d.batch, tiling.n1, tiling.m1 * FRACTAL, FRACTAL)
        ws = kb.tensor(dtype, ws_shape, "GM", "ws_c", is_workspace=True)
        _call(kb, gemm_c_program(tuple(int(x) for x in gemm.tensor_c.shape), ws_shape, dtype, d.m, d.n), (c, ws))
        handles["c"] = ws
        return handles

    @staticmethod
    def _stage_im2col(kb, handle, g, tiling):
        padded_m = tiling.m1 * FRACTAL
        func = im2col_program(tuple(int(x) for x in g.tensor_a.shape), g.conv, padded_m, tiling.k0,
                              g.desc.in_dtype)
        ws = kb.tensor(g.desc.in_dtype, (*g.desc.batch, tiling.k1, padded_m, tiling.k0), "GM", "ws_a",
                       is_workspace=True)
        _call(kb, func, (handle, ws))
        return ws

    @staticmethod
    def _stage_bias(kb, handle, tensor, d, n1: int, count: int):
        func = bias_program(tuple(int(x) for x in tensor.shape), str(tensor.dtype), count, n1 * FRACTAL, d.acc_dtype)
        ws = kb.tensor(d.acc_dtype, (n1 * FRACTAL,), "GM", "ws_bias", is_workspace=True)
        _call(kb, func, (handle, ws))
        return ws


def _fractals(tensor) -> tuple:
    """(column fractals, row fractals) of a FRACTAL_NZ tensor ``[..., c1, r1, 16, c0]``."""
    shape = [int(x) for x in tensor.shape]
    return shape[-4], shape[-3]


def _call(kb, func, handles) -> None:
    from npusim.sim.isa.tvm_call.text import program_text
    kb.tvm_call(program_text(func), tuple(handles))


def _find(tensor_list, params, tensor, name: str):
    for position, item in enumerate(tensor_list):
        if item.same_as(tensor):
            return params[position]
    raise TbeScheduleError(f"kernel {name}: tensor '{tensor.op.name}' of the matmul is missing from tensor_list")


def _param_name(tensor, position: int) -> str:
    import re
    base = re.sub(r"\W", "_", str(tensor.op.name)) or "arg"
    return f"arg{position}_{base}"


__all__ = ["CubeSchedule"]
