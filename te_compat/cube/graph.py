"""Reading a cube graph: the ``matmul`` node of :mod:`te_compat.dsl.cube` and the element-wise epilogue above it.

A cube graph is ``out = e_k(... e_1(matmul(a, b, bias)))`` where each ``e_i`` is a one-input DSL function the cube
schedule fuses into the tile in UB: relu, the tensor-scalar add / mul / max / min, and cast.
"""
from __future__ import annotations

from dataclasses import dataclass

from te_compat.dsl.cube import MATMUL_TAG, MatmulDesc, desc_of
from te_compat.objects import raw_tree

#: epilogue tags -> the vector instruction (scalar ops carry their scalar)
EPILOGUE = {"elewise_single_relu": "vrelu", "elewise_single_VS_add": "vadds", "elewise_single_VS_mul": "vmuls",
            "elewise_single_VS_max": "vmaxs", "elewise_single_VS_min": "vmins", "elewise_single_cast": "vconv"}


@dataclass(frozen=True)
class EpilogueOp:
    """One fused element-wise step: ``opcode`` on the tile, from ``src_dtype`` to ``dst_dtype``."""

    opcode: str
    src_dtype: str
    dst_dtype: str
    scalar: object = None


@dataclass(frozen=True)
class CubeGraph:
    """The matmul node (``desc``), its input tensors, the output tensor and the fused epilogue steps."""

    desc: MatmulDesc
    tensor_a: object
    tensor_b: object
    tensor_bias: object
    output: object
    epilogue: tuple
    conv: dict = None       # a convolution's geometry (te_compat.dsl.conv): A is built by im2col, the result is 5HD
    gemm: "GemmParts" = None    # gemm's alpha / beta / C (te_compat.dsl.gemm)


@dataclass(frozen=True)
class GemmParts:
    """gemm's epilogue operands: ``alpha`` / ``beta`` each a ``[1]`` GM tensor or a float, C (``tensor_c``, None:
    no C) in ``c_format`` (ND ``[M, N]`` or the output's FRACTAL_NZ)."""

    alpha: object
    beta: object
    tensor_c: object = None
    c_format: str = None

    @property
    def scalar_tensors(self) -> tuple:
        """The alpha / beta GM tensors (those given as tensors), in that order."""
        return tuple(x for x in (self.alpha, self.beta) if not isinstance(x, float))


def is_cube_graph(outs) -> bool:
    """Whether the graph ending in ``outs`` has a matmul node (the cube schedule's)."""
    outs = raw_tree(outs)
    seen, stack = set(), list(outs) if isinstance(outs, (list, tuple)) else [outs]
    while stack:
        tensor = stack.pop()
        op = tensor.op
        if op in seen:
            continue
        seen.add(op)
        if getattr(op, "tag", "") == MATMUL_TAG:
            return True
        stack.extend(getattr(op, "input_tensors", ()))
    return False


def read_graph(outs, name: str) -> CubeGraph:
    """The :class:`CubeGraph` of ``outs`` (one output tensor); an epilogue step the schedule cannot fuse raises
    UnsupportedError naming it."""
    from npusim.errors import UnsupportedError
    outs = raw_tree(outs)
    outs = list(outs) if isinstance(outs, (list, tuple)) else [outs]
    if len(outs) != 1:
        raise UnsupportedError(f"kernel {name}: the cube schedule writes one output, got {len(outs)}")
    steps, tensor = [], outs[0]
    while tensor.op.tag != MATMUL_TAG:
        tag = tensor.op.tag
        inputs = list(tensor.op.input_tensors)
        if tag not in EPILOGUE or len(inputs) != 1:
            raise UnsupportedError(f"kernel {name}: '{tag or tensor.op.name}' after a matmul is not an element-wise "
                                   f"step the cube schedule fuses ({', '.join(sorted(EPILOGUE))})")
        scalar = tensor.op.attrs.get("scalar") if tensor.op.attrs else None
        steps.append(EpilogueOp(EPILOGUE[tag], str(inputs[0].dtype), str(tensor.dtype),
                                None if scalar is None else float(scalar)))
        tensor = inputs[0]
    at = tensor.op.attrs
    bias = at["tensor_bias"] if "tensor_bias" in at else None
    conv = {key[len("conv_"):]: int(value) for key, value in at.items() if key.startswith("conv_")} \
        if "kind" in at and str(at["kind"]) == "conv2d" else None
    return CubeGraph(desc_of(tensor.op), at["tensor_a"], at["tensor_b"], bias, outs[0], tuple(reversed(steps)),
                     conv, _gemm_parts(at))


def _gemm_parts(at):
    """The :class:`GemmParts` of a gemm node's attrs (None for a matmul / conv node)."""
    if "kind" not in at or str(at["kind"]) != "gemm":
        return None
    alpha = at["tensor_alpha"] if "tensor_alpha" in at else float(at["alpha_value"])
    beta = at["tensor_beta"] if "tensor_beta" in at else float(at["beta_value"])
    if "tensor_c" not in at:
        return GemmParts(alpha, beta)
    return GemmParts(alpha, beta, at["tensor_c"], str(at["c_format"]))


__all__ = ["CubeGraph", "EPILOGUE", "EpilogueOp", "GemmParts", "is_cube_graph", "read_graph"]
