"""Input data of a case, drawn as msopst draws it (``gen_data`` of msopst's ``st/interface/data_generator.py``),
from a seeded generator so every process (pytest-xdist workers, Ray tasks) draws the same data for a case.

Distributions, with ``value_range = [a, b]`` read as msopst reads it: uniform [a, b); normal (mean a, standard
deviation |b| + 1e-4); beta (alpha |a| + 1e-4, beta |b| + 1e-4); laplace (centre a, scale |b| + 1e-4);
triangular (left a, right b, mode drawn uniformly in [a, b)); relu / sigmoid / softmax / tanh: uniform [a, b)
through that function.  bool draws 0/1.  A tensor with ``value`` (the data itself, or a .bin file) ignores both.
The generator is ``numpy.random.default_rng([seed, crc32(case name), input index])``.
"""
from __future__ import annotations

import zlib
from pathlib import Path

import numpy as np

from npusim.errors import CaseFileError


def case_rng(seed: int, case_name: str, index: int) -> np.random.Generator:
    """The generator of input ``index`` of case ``case_name`` (independent of which other cases run)."""
    return np.random.default_rng([int(seed) & 0xFFFFFFFF, zlib.crc32(case_name.encode("utf-8")), index])


def _draw(rng: np.random.Generator, distribution: str, low: float, high: float, shape: tuple) -> np.ndarray:
    if distribution == "normal":
        return rng.normal(low, abs(high) + 1e-4, shape)
    if distribution == "beta":
        return rng.beta(abs(low) + 1e-4, abs(high) + 1e-4, shape)
    if distribution == "laplace":
        return rng.laplace(low, abs(high) + 1e-4, shape)
    if distribution == "triangular":
        if high == low:
            return np.full(shape, float(low))
        return rng.triangular(low, rng.uniform(low, high), high, shape)
    pool = rng.uniform(low, high, shape)
    if distribution == "relu":
        return np.maximum(0, pool)
    if distribution == "sigmoid":
        return 1 / (1 + np.exp(-pool))
    if distribution == "softmax":
        return np.exp(pool) / np.sum(np.exp(pool))
    if distribution == "tanh":
        return np.tanh(pool)
    return pool


def generate(desc, rng: np.random.Generator) -> np.ndarray:
    """The data of one input :class:`~npusim.optest.cases.TensorDesc`."""
    if desc.value is not None:
        return _fixed(desc)
    low, high = desc.value_range
    if desc.dtype == "bool":
        return rng.integers(0, 2, desc.shape).astype(np.bool_)
    data = _draw(rng, desc.distribution, low, high, desc.shape)
    if np.dtype(desc.dtype).kind in "iu":   # msopst's astype truncates toward zero: keep it inside the dtype
        info = np.iinfo(desc.dtype)
        data = np.clip(np.trunc(data), info.min, info.max)
    return np.asarray(data).astype(desc.dtype)


def _fixed(desc) -> np.ndarray:
    if isinstance(desc.value, str):
        path = Path(desc.value)
        try:
            data = np.fromfile(path, dtype=desc.dtype)
        except OSError as exc:
            raise CaseFileError(f"input '{desc.name}': cannot read {path}: {exc.strerror or exc}") from None
        if data.size != int(np.prod(desc.shape)):
            raise CaseFileError(f"input '{desc.name}': {path} holds {data.size} {desc.dtype} values but the shape "
                                f"{list(desc.shape)} needs {int(np.prod(desc.shape))}")
        return data.reshape(desc.shape)
    data = np.array(desc.value, dtype=desc.dtype)
    if data.shape != tuple(desc.shape) and data.size == int(np.prod(desc.shape)):
        data = data.reshape(desc.shape)
    if data.shape != tuple(desc.shape):
        raise CaseFileError(f"input '{desc.name}': 'value' has shape {list(data.shape)} but the tensor's shape is "
                            f"{list(desc.shape)}")
    return data


def generate_inputs(case, seed: int = 0) -> list:
    """One array per input of ``case``."""
    return [generate(desc, case_rng(seed, case.name, i)) for i, desc in enumerate(case.inputs)]


__all__ = ["case_rng", "generate", "generate_inputs"]
