"""The cube's DSL functions: ``matmul`` / ``batch_matmul`` (te.lang.cce 2020 and tbe.dsl 2022 spellings) and
``check_conv_shape``.

``matmul(tensor_a, tensor_b, trans_a, trans_b, format_a, format_b, alpha_num, beta_num, dst_dtype, tensor_bias,
...)`` computes ``C = op(A) @ op(B) (+ bias)`` as two tagged TVM computes: ``matmul_mmad`` (the reduction over K in
the cube's accumulator dtype: float32 for float16 inputs, int32 for int8) and ``matmul`` (bias added in the
accumulator dtype, then cast to ``dst_dtype``).  The ``matmul`` node's attrs describe the product for the cube
schedule (:mod:`te_compat.cube`): M, K, N, the transposes, the formats, the dtypes and the input tensors.

Formats of a 2-D matrix X[r, c] (each input is A or A^T, B or B^T as stored; the output is C[M, N]):
``ND`` — row-major ``[r, c]``; ``FRACTAL_NZ`` — ``[ceil(c / c0), ceil(r / 16), 16, c0]`` with X[r, c] at
``[c // c0, r // 16, r % 16, c % c0]`` (c0: one 32-byte block of the dtype, 16 float16 / 32 int8; read from the
tensor's last dim), the padding zero.
``FRACTAL_Z`` (CANN's weight layout, e.g. matmul's B as int8 matmul and fully_connection pass it) —
``[ceil(r / c0), ceil(c / 16), 16, c0]`` with X[r, c] at ``[r // c0, c // 16, c % 16, r % c0]``: element for element
the FRACTAL_NZ of X^T, which is how it is read (the operand's transpose flag flipped).
A FRACTAL_NZ placeholder whose attrs carry ``ori_shape`` (as CANN op files set them) has the unpadded sizes of that
shape; without it, and for FRACTAL_Z (as CANN's matmul), the padded ones.  A batch_matmul input has the batch
dims in front.  Accumulation order and rounding follow the cube: products and sums in float32 (int32), one
rounding to ``dst_dtype`` at the end.
"""
from __future__ import annotations

from dataclasses import dataclass

from tvm import te, tirx

from npusim.errors import TbeArgumentError, TbeDtypeError, UnsupportedError

FRACTAL = 16
ND, NZ, FZ = "ND", "FRACTAL_NZ", "FRACTAL_Z"
MMAD_TAG, MATMUL_TAG = "matmul_mmad", "matmul"
_ACC = {"float16": "float32", "int8": "int32", "uint8": "int32"}
_OUT = {"float16": ("float16", "float32"), "int8": ("int32",), "uint8": ("int32",)}


def ceil_div(a: int, b: int) -> int:
    return -(-a // b)


@dataclass(frozen=True)
class MatmulDesc:
    """What the cube schedule needs of one (batch) matmul: logical sizes, layouts, dtypes."""

    m: int
    k: int
    n: int
    batch: tuple
    trans_a: bool
    trans_b: bool
    format_a: str
    format_b: str
    format_out: str
    in_dtype: str
    acc_dtype: str
    out_dtype: str
    has_bias: bool


def _shape(tensor) -> tuple:
    return tuple(int(d) for d in tensor.shape)


def _stored_2d(shape: tuple, fmt: str, dtype: str, what: str) -> tuple:
    """(batch dims, rows, cols) of a stored matrix (cols padded to c0 and rows to 16 for FRACTAL_NZ)."""
    if fmt == ND:
        if len(shape) < 2:
            raise TbeArgumentError(f"matmul: {what} in ND format must have at least 2 dims, got {list(shape)}")
        return shape[:-2], shape[-2], shape[-1]
    if fmt == NZ:
        if len(shape) < 4 or shape[-2] != FRACTAL:
            raise TbeArgumentError(f"matmul: {what} in FRACTAL_NZ format must end in [c1, r1, 16, c0], got "
                                   f"{list(shape)}")
        return shape[:-4], shape[-3] * FRACTAL, shape[-4] * shape[-1]
    raise TbeArgumentError(f"matmul: format of {what} must be ND, FRACTAL_NZ or FRACTAL_Z, got {fmt!r}")


def _element(tensor, fmt: str, batch: tuple, r, c, dtype: str):
    """Stored element X[r, c] of ``tensor`` (with ``batch`` indices in front)."""
    if fmt == ND:
        return tensor[(*batch, r, c)]
    c0 = int(tensor.shape[-1])    # the fractal's row: one block of the dtype (16 float16, 32 int8)
    return tensor[(*batch, c // c0, r // FRACTAL, r % FRACTAL, c % c0)]


def _ori_2d(tensor, fmt: str, rows: int, cols: int, swapped: bool = False) -> tuple:
    """(rows, cols) of a stored matrix: a FRACTAL_NZ placeholder's ``ori_shape`` attr (as CANN's op files set it)
    gives the unpadded sizes; otherwise the stored (padded) ones.  A FRACTAL_Z operand (``swapped``: read as the
    FRACTAL_NZ of its transpose) keeps its padded sizes, as CANN's matmul takes them from the fractal shape: its
    ``ori_shape`` may be the matrix's or its transpose's (MindSpore passes a Dense weight's [n, k])."""
    attrs = getattr(tensor.op, "attrs", None) or {}
    if fmt != NZ or swapped or "ori_shape" not in attrs:
        return rows, cols
    ori = [int(v) for v in attrs["ori_shape"]]
    if len(ori) < 2 or not (0 < ori[-2] <= rows and 0 < ori[-1] <= cols):
        return rows, cols
    return ori[-2], ori[-1]


def _check_dtypes(a, b, dst_dtype: str) -> tuple:
    in_dtype = str(a.dtype)
    if in_dtype != str(b.dtype) or in_dtype not in _ACC:
        raise TbeDtypeError(f"matmul: tensor_a and tensor_b must both be float16 or both int8/uint8, got "
                            f"{a.dtype} and {b.dtype}")
    if dst_dtype not in _OUT[in_dtype]:
        raise TbeDtypeError(f"matmul: dst_dtype of {in_dtype} inputs must be one of {list(_OUT[in_dtype])}, got "
                            f"{dst_dtype!r}")
    return in_dtype, _ACC[in_dtype]


def _describe(a, b, trans_a, trans_b, format_a, format_b, format_out, dst_dtype, bias,
              swapped: tuple = (False, False)) -> MatmulDesc:
    """``swapped``: whether A / B came as FRACTAL_Z (now read as FRACTAL_NZ of their transposes, see
    :func:`z_as_nz`)."""
    in_dtype, acc = _check_dtypes(a, b, dst_dtype)
    batch_a, ra, ca = _stored_2d(_shape(a), format_a, in_dtype, "tensor_a")
    batch_b, rb, cb = _stored_2d(_shape(b), format_b, in_dtype, "tensor_b")
    ra, ca = _ori_2d(a, format_a, ra, ca, swapped[0])
    rb, cb = _ori_2d(b, format_b, rb, cb, swapped[1])
    m, k = (ca, ra) if trans_a else (ra, ca)
    k_b, n = (cb, rb) if trans_b else (rb, cb)
    if format_a == NZ or format_b == NZ:   # padded fractal dims: K must agree once both are padded
        c0 = int(_shape(a if format_a == NZ else b)[-1])
        if ceil_div(k, c0) != ceil_div(k_b, c0):
            raise TbeArgumentError(f"matmul: the K axes of tensor_a ({k}) and tensor_b ({k_b}) differ")
        k = min(k, k_b)
    elif k != k_b:
        raise TbeArgumentError(f"matmul: the K axes of tensor_a ({k}) and tensor_b ({k_b}) differ")
    if batch_b and batch_a != batch_b:
        raise TbeArgumentError(f"matmul: batch dims of tensor_a {list(batch_a)} and tensor_b {list(batch_b)} differ")
    if bias is not None:
        length = _shape(bias)[-1]
        if str(bias.dtype) not in (in_dtype, acc, "float32") or not n <= length <= ceil_div(n, FRACTAL) * FRACTAL:
            raise TbeArgumentError(f"matmul: tensor_bias must hold N={n} values (up to {ceil_div(n, 16) * 16}) "
                                   f"of {in_dtype} or {acc}, got {bias.dtype}{list(_shape(bias))}")
    return MatmulDesc(m, k, n, tuple(batch_a), bool(trans_a), bool(trans_b), format_a, format_b, format_out,
                      in_dtype, acc, dst_dtype, bias is not None)


def _out_shape(d: MatmulDesc) -> tuple:
    if d.format_out == ND:
        return (*d.batch, d.m, d.n)
    return (*d.batch, ceil_div(d.n, FRACTAL), ceil_div(d.m, FRACTAL), FRACTAL, FRACTAL)


def _logical(indices: tuple, d: MatmulDesc) -> tuple:
    """(batch indices, m, n) of an output element's indices."""
    nb = len(d.batch)
    if d.format_out == ND:
        return indices[:nb], indices[nb], indices[nb + 1]
    n1, m1, mi, ni = indices[nb:]
    return indices[:nb], m1 * FRACTAL + mi, n1 * FRACTAL + ni


def mmad_node(a, b, d: MatmulDesc, name: str):
    """The accumulator node: sum over k of A x B in the accumulator dtype (the L0C result the cube schedule
    recognises by MMAD_TAG), in the output layout of ``d``; padding rows / columns of a fractal output are 0."""
    k_axis = te.reduce_axis((0, d.k), name="k")
    b_batched = len(_shape(b)) > (2 if d.format_b == ND else 4)

    def product(*indices):
        batch, m, n = _logical(indices, d)
        av = _element(a, d.format_a, batch, k_axis, m, d.in_dtype) if d.trans_a else \
            _element(a, d.format_a, batch, m, k_axis, d.in_dtype)
        bb = batch if b_batched else ()
        bv = _element(b, d.format_b, bb, n, k_axis, d.in_dtype) if d.trans_b else \
            _element(b, d.format_b, bb, k_axis, n, d.in_dtype)
        value = av.astype(d.acc_dtype) * bv.astype(d.acc_dtype)
        if d.format_out != ND and (d.m % FRACTAL or d.n % FRACTAL):
            value = tirx.if_then_else(tirx.all(m < d.m, n < d.n), value, tirx.const(0, d.acc_dtype))
        return te.sum(value, axis=k_axis)

    return te.compute(_out_shape(d), product, name=name, tag=MMAD_TAG)


def _build(a, b, bias, d: MatmulDesc):
    mmad = mmad_node(a, b, d, "tensor_mmad")
    shape = _out_shape(d)

    def finish(*indices):
        value = mmad[indices]
        if bias is not None:
            _, _, n = _logical(indices, d)
            value = value + bias[(0,) * (len(_shape(bias)) - 1) + (n,)].astype(d.acc_dtype)
        return value.astype(d.out_dtype)

    attrs = {"m": d.m, "k": d.k, "n": d.n, "batch": list(d.batch), "trans_a": int(d.trans_a),
             "trans_b": int(d.trans_b), "format_a": d.format_a, "format_b": d.format_b, "format_out": d.format_out,
             "in_dtype": d.in_dtype, "acc_dtype": d.acc_dtype, "out_dtype": d.out_dtype, "has_bias": int(d.has_bias),
             "tensor_a": a, "tensor_b": b, "tensor_mmad": mmad}
    if bias is not None:
        attrs["tensor_bias"] = bias
    return te.compute(shape, finish, name="tensor_c", tag=MATMUL_TAG, attrs=attrs)


def desc_of(node) -> MatmulDesc:
    """The :class:`MatmulDesc` stored on a ``matmul`` node's attrs."""
    at = node.attrs
    return MatmulDesc(int(at["m"]), int(at["k"]), int(at["n"]), tuple(int(x) for x in at["batch"]),
                      bool(int(at["trans_a"])), bool(int(at["trans_b"])), str(at["format_a"]), str(at["format_b"]),
                      str(at["format_out"]), str(at["in_dtype"]), str(at["acc_dtype"]), str(at["out_dtype"]),
                      bool(int(at["has_bias"])))


def _format(value, name: str) -> str:
    text = str(value).upper() if value is not None else ND
    return {"ND": ND, "NZ": NZ, "FRACTAL_NZ": NZ}.get(text, text)


def z_as_nz(fmt: str, trans: bool) -> tuple:
    """(format, transpose, was FRACTAL_Z) of an operand: FRACTAL_Z X is FRACTAL_NZ X^T element for element, so it
    is read as that with the transpose flag flipped."""
    if fmt == FZ:
        return NZ, not trans, True
    return fmt, trans, False


def matmul(tensor_a, tensor_b, trans_a=False, trans_b=False, format_a="ND", format_b="ND", alpha_num=1.0,
           beta_num=0.0, dst_dtype="float16", tensor_bias=None, quantize_params=None, format_out=None,
           compress_index=None, attrs=None, kernel_name="MatMul"):
    """``te.lang.cce.matmul`` / ``tbe.dsl.matmul``: ``op(A) @ op(B) (+ bias)`` in ``dst_dtype`` (see the module
    docstring).  ``format_out`` defaults to FRACTAL_NZ when an input is FRACTAL_NZ or FRACTAL_Z, else ND.
    ``alpha_num`` / ``beta_num`` are not computed by CANN's matmul: the 2020 one rejects anything but 1.0 / 0.0
    ("we not support this situation now!"), the 2022 one documents them as unused (beta default 1.0); so alpha 1.0
    with beta 0.0 or 1.0 is accepted and anything else raises TbeArgumentError (``gemm`` computes alpha / beta).
    Quantisation and compression are not modelled (UnsupportedError)."""
    if float(alpha_num) != 1.0 or float(beta_num) not in (0.0, 1.0):
        raise TbeArgumentError(f"matmul '{kernel_name}': alpha_num={alpha_num}, beta_num={beta_num}: we not support "
                               f"this situation now! (CANN's matmul does not scale; use gemm for alpha / beta)")
    if quantize_params is not None or compress_index is not None:
        raise UnsupportedError(f"matmul '{kernel_name}': quantize_params / compress_index are not modelled")
    format_a, trans_a, z_a = z_as_nz(_format(format_a, "format_a"), bool(trans_a))
    format_b, trans_b, z_b = z_as_nz(_format(format_b, "format_b"), bool(trans_b))
    default_out = NZ if NZ in (format_a, format_b) else ND
    format_out = _format(format_out if format_out is not None else default_out, "format_out")
    if format_out not in (ND, NZ):
        raise TbeArgumentError(f"matmul: format_out must be ND or FRACTAL_NZ, got {format_out!r}")
    desc = _describe(tensor_a, tensor_b, trans_a, trans_b, format_a, format_b, format_out, str(dst_dtype),
                     tensor_bias, (z_a, z_b))
    return _build(tensor_a, tensor_b, tensor_bias, desc)


def batch_matmul(tensor_a, tensor_b, trans_a=False, trans_b=False, format_a="ND", format_b="ND", alpha_num=1.0,
                 beta_num=0.0, dst_dtype="float16", tensor_bias=None, format_out=None, kernel_name="BatchMatMul"):
    """``batch_matmul``: :func:`matmul` over the leading batch dims of ``tensor_a`` (``tensor_b`` with the same
    batch dims, or none: shared)."""
    return matmul(tensor_a, tensor_b, trans_a, trans_b, format_a, format_b, alpha_num, beta_num, dst_dtype,
                  tensor_bias, format_out=format_out, kernel_name=kernel_name)


_CONV_LIMITS = {"feature map H/W": (1, 4096), "filter H/W": (1, 255), "pad": (0, 255), "stride": (1, 63),
                "dilation": (1, 255)}


def _in_range(what: str, values) -> None:
    low, high = _CONV_LIMITS[what]
    for value in values:
        if not low <= int(value) <= high:
            raise TbeArgumentError(f"conv2d: {what} must be in [{low}, {high}], got {value}")


def check_conv_shape(shape_in, shape_w, pad_top, pad_bottom, pad_left, pad_right, strideh, stridew, in_dtype,
                     w_dtype, fusion_para=None, optim_dict=None, dilateh=1, dilatew=1, dynamic_para=None,
                     groups=1):
    """CANN's ``check_conv_shape`` for NCHW ``shape_in`` and NCHW (Cout, Cin/groups, kh, kw) ``shape_w``: the
    limits TBE checks (feature map 1-4096, filter 1-255, pads 0-255, strides 1-63, dilations 1-255), matching
    channels (input = filter channels x groups, output a multiple of groups) and a non-empty output; returns
    ``(shape_in, shape_w)``.  (The 2020 signature has ``fusion_para`` where later ones have ``optim_dict``: both are
    accepted and not used; ``groups`` is the later signature's: the 2020 one, without it, is groups 1.)"""
    shape_in, shape_w = [int(v) for v in shape_in], [int(v) for v in shape_w]
    if len(shape_in) != 4 or len(shape_w) != 4:
        raise TbeArgumentError(f"conv2d: shapes must be 4-D (NCHW), got {shape_in} and {shape_w}")
    if str(in_dtype) not in ("float16", "int8", "uint8") or str(w_dtype) not in ("float16", "int8"):
        raise TbeDtypeError(f"conv2d: feature map / filter dtypes {in_dtype}/{w_dtype} are not supported")
    _in_range("feature map H/W", shape_in[2:])
    _in_range("filter H/W", shape_w[2:])
    _in_range("pad", (pad_top, pad_bottom, pad_left, pad_right))
    _in_range("stride", (strideh, stridew))
    _in_range("dilation", (dilateh, dilatew))
    if isinstance(groups, bool) or not isinstance(groups, int) or groups < 1:
        raise TbeArgumentError(f"conv2d: groups must be a positive int, got {groups!r}")
    if shape_w[0] % groups:
        raise TbeArgumentError(f"conv2d: output channels {shape_w[0]} must be a multiple of groups {groups}")
    if shape_in[1] != shape_w[1] * int(groups):
        raise TbeArgumentError(f"conv2d: input channels {shape_in[1]} != filter channels {shape_w[1]} x groups "
                               f"{groups}")
    for size, pads, kernel, stride, dilation in ((shape_in[2], pad_top + pad_bottom, shape_w[2], strideh, dilateh),
                                                 (shape_in[3], pad_left + pad_right, shape_w[3], stridew, dilatew)):
        if (size + pads - ((kernel - 1) * dilation + 1)) // stride + 1 < 1:
            raise TbeArgumentError(f"conv2d: the padded feature map ({size} + {pads}) is smaller than the dilated "
                                   f"filter ({(kernel - 1) * dilation + 1}): the output would be empty")
    return shape_in, shape_w


__all__ = ["MATMUL_TAG", "MMAD_TAG", "MatmulDesc", "batch_matmul", "check_conv_shape", "desc_of", "matmul"]
