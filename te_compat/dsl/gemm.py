"""``gemm``: ``alpha * op(A) @ op(B) + beta * C`` on the cube (te.lang.cce 2020 and tbe.dsl 2022 spellings).

2020 (``te.lang.cce.gemm``): ``gemm(tensor_a, tensor_b, tensor_alpha, tensor_beta, trans_a=False, trans_b=False,
format_a="ND", format_b="ND", dst_dtype="float16", tensor_bias=None, quantize_params=None)``; ``tensor_alpha`` /
``tensor_beta`` are ``[1]``-shaped tensors of ``dst_dtype`` (CANN's gemm op file makes them with
``tvm.placeholder([1], ...)``) and ``tensor_bias`` is the matrix C (``[M, N]`` in ND, or the output's FRACTAL_NZ
``[ceil(N/16), ceil(M/16), 16, 16]``) of ``dst_dtype``.  2022 (``tbe.dsl.gemm``): ``gemm(tensor_a, tensor_b,
para_dict)`` with the keys ``tensor_alpha`` / ``tensor_beta`` (a ``[1]`` tensor or a float), ``trans_a``,
``trans_b``, ``format_a``, ``format_b``, ``dst_dtype``, ``tensor_c`` (C), ``format_out``, ``kernel_name``,
``quantize_params``.  Both spellings are one function here (``te.lang.cce.gemm is tbe.dsl.gemm``): a dict third
argument selects the 2022 form.

Numerics, as CANN's gemm compute has them: the cube accumulates A @ B in L0C (float32 for float16 inputs, int32 for
int8); the epilogue runs in UB in that accumulator dtype: alpha and beta are read from GM into UB (float16 ones cast
to float32 there), C (``dst_dtype``) is cast to float32 when it is float16, then ``alpha * acc + beta * C`` is
computed in float32 (int32) and rounded once to ``dst_dtype``.  The node is a ``matmul`` node of
:mod:`te_compat.dsl.cube` with ``kind`` "gemm" in its attrs; :mod:`te_compat.cube` schedules it (the alpha / beta
multiplies are ``vmuls`` with a scalar register loaded from UB).

Formats: ``ND`` and ``FRACTAL_NZ`` as in :func:`te_compat.dsl.cube.matmul`; CANN's zZ ``fractal`` layout is not
modelled (UnsupportedError).  Argument errors carry CANN's texts, prefixed with ``gemm:``.
"""
from __future__ import annotations

from tvm import te, tirx

from npusim.errors import TbeArgumentError, TbeDtypeError, UnsupportedError
from te_compat.dsl.cube import (FRACTAL, MATMUL_TAG, ND, NZ, MatmulDesc, _describe, _logical, _out_shape, _shape,
                                ceil_div, mmad_node)

GEMM_KIND = "gemm"
_IN_PAIRS = {("float16", "float16"), ("int8", "int8"), ("uint8", "int8")}


def _fail(text: str, cls=TbeArgumentError):
    raise cls(f"gemm: {text}")


def _gemm_format(value, name: str) -> str:
    text = str(value) if value is not None else ND
    if text == "fractal":
        raise UnsupportedError(f"gemm: {name} 'fractal' (CANN's zZ / nZ cube layouts) is not modelled by npusim; "
                               f"give ND or FRACTAL_NZ")
    mapped = {"ND": ND, "NZ": NZ, "FRACTAL_NZ": NZ}.get(text.upper())
    if mapped is None:
        _fail(f"{name} must be ND or fractal! (got {text!r})")
    return mapped


def _check_scalar(value, name: str):
    """A ``[1]``-shaped tensor or (2022 form) a Python number."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return None
    if not isinstance(value, te.Tensor):
        _fail(f"{name} must be a [1]-shaped tensor (or a float in the para_dict form), got {type(value).__name__}",
              TbeDtypeError)
    if _shape(value) != (1,):
        _fail(f"{name} must have shape [1], got {list(_shape(value))}")
    return str(value.dtype)


def _check_dtypes(a, b, alpha, beta, dst_dtype: str, quantize_params) -> None:
    """CANN's gemm dtype checks, in its order and with its texts."""
    alpha_dtype, beta_dtype = _check_scalar(alpha, "tensor_alpha"), _check_scalar(beta, "tensor_beta")
    if alpha_dtype and beta_dtype and alpha_dtype != beta_dtype:
        _fail("dtype of alpha and beta are not same!", TbeDtypeError)
    if (alpha_dtype or beta_dtype) and dst_dtype != (alpha_dtype or beta_dtype):
        _fail("dtype of alpha/beta and dst are not same!", TbeDtypeError)
    if (str(a.dtype), str(b.dtype)) not in _IN_PAIRS:
        _fail("only support float16 & float16 and uint8/int8 & int8 intput data type.", TbeDtypeError)
    if dst_dtype not in ("float16", "float32", "int32"):
        _fail("dst dtype only support float16 or float32 or int32!", TbeDtypeError)
    if str(a.dtype) == "float16" and dst_dtype not in ("float16", "float32"):
        _fail("dst_dtype must be 'float16' or 'float32'.", TbeDtypeError)
    if quantize_params is not None:
        raise UnsupportedError("gemm: quantize_params (quantised gemm) is not modelled by npusim")
    if str(a.dtype) != "float16" and dst_dtype == "float16":
        _fail("Lack of quantize parameter 'quantize_params'.")
    if str(a.dtype) != "float16" and dst_dtype == "float32":
        raise UnsupportedError("gemm: int8 inputs with a float32 result (CANN converts through float16) are not "
                               "modelled by npusim; use dst_dtype int32")


def _check_shapes(a, b, format_a: str, format_b: str, trans_b: bool) -> None:
    for tensor, fmt, name in ((a, format_a, "tensor_a"), (b, format_b, "tensor_b")):
        dims = len(_shape(tensor))
        if fmt == ND and dims not in (2, 3):
            _fail(f"for nd input data, only support tensor's dim is 2 or 3! ({name} is {list(_shape(tensor))})")
        if fmt == NZ and dims not in (4, 5):
            _fail(f"for fractal input data, only support tensor's dim is 4 or 5! ({name} is "
                  f"{list(_shape(tensor))})")
    if format_a == NZ and format_b == ND:
        _fail("Not support A is fractal and B is ND!")
    if str(b.dtype) == "int8" and trans_b:
        _fail("Not support B transpose for gevm or gemm b8 input.")


def _check_c(c, d: MatmulDesc, dst_dtype: str) -> str:
    """The format of C (``tensor_bias`` / ``tensor_c``): the ND ``[M, N]`` matrix or the output's FRACTAL_NZ."""
    if str(c.dtype) != dst_dtype:
        _fail(f"Tensor bias type error, should be '{dst_dtype}'", TbeDtypeError)
    shape = _shape(c)
    if shape == (*d.batch, d.m, d.n):
        return ND
    if shape == (*d.batch, ceil_div(d.n, FRACTAL), ceil_div(d.m, FRACTAL), FRACTAL, FRACTAL):
        return NZ
    if len(shape) in (1, 2) and shape[-1] == d.n:
        raise UnsupportedError(f"gemm: a broadcast C {list(shape)} is not modelled by npusim; give the [M, N] = "
                               f"[{d.m}, {d.n}] matrix")
    _fail(f"non broadcast bias shape must be same as output shape [{d.m}, {d.n}] (or its FRACTAL_NZ), got "
          f"{list(shape)}")


def _value(scalar, acc: str):
    """alpha / beta in the accumulator dtype (a float16 tensor is cast to float32 in UB, as CANN does)."""
    if isinstance(scalar, te.Tensor):
        return scalar[0].astype(acc)
    return tirx.const(scalar, acc)


def _c_element(c, fmt: str, indices: tuple, d: MatmulDesc, acc: str):
    batch, m, n = _logical(indices, d)
    if fmt == ND:
        inside = tirx.all(m < d.m, n < d.n)
        value = c[(*batch, tirx.min(m, d.m - 1), tirx.min(n, d.n - 1))]
        return tirx.if_then_else(inside, value.astype(acc), tirx.const(0, acc))
    return c[(*batch, n // FRACTAL, m // FRACTAL, m % FRACTAL, n % FRACTAL)].astype(acc)


def _build(a, b, parts: dict, d: MatmulDesc):
    alpha, beta, c, c_format = parts["alpha"], parts["beta"], parts["c"], parts["c_format"]
    mmad = mmad_node(a, b, d, "tensor_c")
    shape = _out_shape(d)

    def finish(*indices):
        # the epilogue in UB, in the accumulator dtype (float32 / int32): alpha * acc + beta * C, one rounding
        value = mmad[indices] * _value(alpha, d.acc_dtype)
        if c is not None:
            value = value + _value(beta, d.acc_dtype) * _c_element(c, c_format, indices, d, d.acc_dtype)
        return value.astype(d.out_dtype)

    attrs = {"m": d.m, "k": d.k, "n": d.n, "batch": list(d.batch), "trans_a": int(d.trans_a),
             "trans_b": int(d.trans_b), "format_a": d.format_a, "format_b": d.format_b, "format_out": d.format_out,
             "in_dtype": d.in_dtype, "acc_dtype": d.acc_dtype, "out_dtype": d.out_dtype, "has_bias": 0,
             "tensor_a": a, "tensor_b": b, "tensor_mmad": mmad, "kind": GEMM_KIND}
    for name, scalar in (("alpha", alpha), ("beta", beta)):
        attrs[f"tensor_{name}" if isinstance(scalar, te.Tensor) else f"{name}_value"] = scalar
    if c is not None:
        attrs["tensor_c"], attrs["c_format"] = c, c_format
    return te.compute(shape, finish, name="tensor_c_gm", tag=MATMUL_TAG, attrs=attrs)


def _from_para_dict(para_dict: dict) -> dict:
    known = {"tensor_alpha", "tensor_beta", "trans_a", "trans_b", "format_a", "format_b", "dst_dtype", "tensor_c",
             "format_out", "kernel_name", "quantize_params", "compress_index", "offset_a", "offset_b"}
    unknown = sorted(set(para_dict) - known)
    if unknown:
        _fail(f"para_dict has unknown keys {unknown}")
    for key in ("compress_index", "offset_a", "offset_b"):
        if para_dict.get(key) not in (None, 0):
            raise UnsupportedError(f"gemm: para_dict['{key}'] (compressed / offset gemm) is not modelled by npusim")
    return {"alpha": para_dict.get("tensor_alpha", 1.0), "beta": para_dict.get("tensor_beta", 1.0),
            "trans_a": bool(para_dict.get("trans_a", False)), "trans_b": bool(para_dict.get("trans_b", False)),
            "format_a": para_dict.get("format_a", "ND"), "format_b": para_dict.get("format_b", "ND"),
            "dst_dtype": para_dict.get("dst_dtype", "float16"), "c": para_dict.get("tensor_c"),
            "format_out": para_dict.get("format_out"), "quantize_params": para_dict.get("quantize_params")}


def gemm(tensor_a, tensor_b, tensor_alpha=None, tensor_beta=None, trans_a=False, trans_b=False, format_a="ND",
         format_b="ND", dst_dtype="float16", tensor_bias=None, quantize_params=None):
    """``te.lang.cce.gemm`` (2020) / ``tbe.dsl.gemm(tensor_a, tensor_b, para_dict)`` (2022): see the module
    docstring.  Returns the result tensor (ND ``[M, N]``, or FRACTAL_NZ when an input is FRACTAL_NZ)."""
    if isinstance(tensor_alpha, dict):
        args = _from_para_dict(tensor_alpha)
    else:
        if tensor_alpha is None or tensor_beta is None:
            _fail("tensor_alpha and tensor_beta are required (the [1]-shaped alpha and beta tensors)",
                  TbeDtypeError)
        args = {"alpha": tensor_alpha, "beta": tensor_beta, "trans_a": bool(trans_a), "trans_b": bool(trans_b),
                "format_a": format_a, "format_b": format_b, "dst_dtype": dst_dtype, "c": tensor_bias,
                "format_out": None, "quantize_params": quantize_params}
    dst = str(args["dst_dtype"]).lower()
    _check_dtypes(tensor_a, tensor_b, args["alpha"], args["beta"], dst, args["quantize_params"])
    fmt_a, fmt_b = _gemm_format(args["format_a"], "format_a"), _gemm_format(args["format_b"], "format_b")
    _check_shapes(tensor_a, tensor_b, fmt_a, fmt_b, args["trans_b"])
    default_out = NZ if NZ in (fmt_a, fmt_b) else ND
    fmt_out = _gemm_format(args["format_out"] or default_out, "format_out")
    try:
        desc = _describe(tensor_a, tensor_b, args["trans_a"], args["trans_b"], fmt_a, fmt_b, fmt_out, dst, None)
    except TbeArgumentError as exc:
        if "K axes" in str(exc):
            _fail(f"reduce axis not same ({str(exc).split(': ', 1)[1]})")
        raise type(exc)(str(exc).replace("matmul:", "gemm:", 1)) from None
    c = args["c"]
    parts = {"alpha": args["alpha"], "beta": args["beta"], "c": c,
             "c_format": _check_c(c, desc, dst) if c is not None else None}
    return _build(tensor_a, tensor_b, parts, desc)


__all__ = ["GEMM_KIND", "gemm"]
