"""aclnnBatchNorm(input, weight?, bias?, runningMean?, runningVar?, training: bool, momentum: double, eps: double,
output, saveMean, saveInvstd) on the vector unit.

``input`` is (N, C, ...) float16/float32 with channels in dimension 1; ``weight`` / ``bias`` / the running
statistics are (C,) (null weight: ones, null bias: zeros).  Training normalises with the batch statistics, writes
``saveMean`` (the batch mean) and ``saveInvstd`` (1 / sqrt(biased var + eps)) and, when given, updates
``runningMean`` / ``runningVar`` in place (``(1 - momentum) * running + momentum * batch``, the variance unbiased).
Inference normalises with the running statistics (both required) and leaves saveMean / saveInvstd as they are.

Kernels (statistics in float32): the per-channel mean, the per-channel variance, the per-channel scale / shift (and
running updates), then ``output = input * scale + shift``.
"""
from __future__ import annotations

import numpy as np

from npusim.aclnn import graph
from npusim.aclnn.kernels import run_graph
from npusim.aclnn.op import Op
from npusim.aclnn.params import Param

_FLOATS = ("float32", "float16")
_CHANNEL_PARAMS = ("weight", "bias", "runningMean", "runningVar")


def _dsl():
    from te_compat import dsl
    return dsl


def _f32(x):
    return graph.as_dtype(x, "float32")


def _check(inv) -> tuple:
    x = inv["input"]
    if len(x.shape) < 2:
        raise inv.fail("input", f"shape {list(x.shape)} needs at least 2 dimensions (N, C, ...)")
    channels = x.shape[1]
    for name in ("input", "output") + _CHANNEL_PARAMS:
        tensor = inv[name]
        if tensor is not None and tensor.dtype not in _FLOATS:
            raise inv.unsupported(name, f"dtype {tensor.dtype}: npusim runs {inv.api} on float16 / float32")
    for name in _CHANNEL_PARAMS:
        if inv[name] is not None and inv[name].shape != (channels,):
            raise inv.fail(name, f"shape {list(inv[name].shape)} must be [{channels}] (input's channels)")
    graph.check_out_shape(inv, "output", x.shape)
    if inv["output"].dtype != x.dtype:
        raise inv.fail("output", f"dtype {inv['output'].dtype} must be input's, {x.dtype}")
    if inv["training"]:
        for name in ("saveMean", "saveInvstd"):
            if inv[name] is None:
                raise inv.fail(name, "is null, but training (training=true) writes it")
            graph.check_out_shape(inv, name, (channels,))
            if inv[name].dtype not in _FLOATS:
                raise inv.fail(name, f"dtype {inv[name].dtype} must be float32 or float16")
    else:
        for name in ("runningMean", "runningVar"):
            if inv[name] is None:
                raise inv.fail(name, "is null, but inference (training=false) normalises with it")
    count = x.numel // max(channels, 1)
    if inv["training"] and count <= 1 and x.numel:
        raise inv.fail("input", f"training needs more than 1 value per channel, got shape {list(x.shape)}")
    return channels, count


def _channel(inv, name: str, fill: float, channels: int) -> np.ndarray:
    tensor = inv[name]
    return np.full(channels, fill, np.float32) if tensor is None else tensor.data()


def _batch_stats(inv, x3: np.ndarray, count: int) -> tuple:
    channels = x3.shape[1]
    mean = np.empty((1, channels, 1), np.float32)
    var = np.empty((1, channels, 1), np.float32)
    dsl = _dsl()
    run_graph(inv, ("mean", count), {"x": x3}, [mean],
              lambda p: [dsl.vmuls(dsl.sum(_f32(p[0]), [0, 2], True), 1.0 / count)])

    def variance(p):
        centred = dsl.vsub(_f32(p[0]), dsl.broadcast(p[1], tuple(int(d) for d in p[0].shape)))
        return [dsl.vmuls(dsl.sum(dsl.vmul(centred, centred), [0, 2], True), 1.0 / count)]

    run_graph(inv, ("var", count), {"x": x3, "mean": mean}, [var], variance)
    return mean.reshape(channels), var.reshape(channels)


def _scale_shift(inv, arrays: dict, eps: float, dests: list, update: tuple):
    """scale = weight / sqrt(var + eps), shift = bias - mean * scale (and the running updates ``update``:
    (momentum, unbiased factor) or ())."""
    dsl = _dsl()

    def compute(p):
        mean, var, weight, bias = (_f32(t) for t in p[:4])
        invstd = dsl.vrsqrt(dsl.vadds(var, eps))
        scale = dsl.vmul(invstd, weight)
        outs = [invstd, scale, dsl.vsub(bias, dsl.vmul(mean, scale))]
        if update:
            momentum, factor = update
            running_mean, running_var = _f32(p[4]), _f32(p[5])
            outs.append(dsl.vadd(dsl.vmuls(running_mean, 1.0 - momentum), dsl.vmuls(mean, momentum)))
            outs.append(dsl.vadd(dsl.vmuls(running_var, 1.0 - momentum), dsl.vmuls(var, momentum * factor)))
        return [graph.as_dtype(o, d.dtype.name) for o, d in zip(outs, dests)]

    run_graph(inv, ("scale_shift", eps, update), arrays, dests, compute)


def _batch_norm(inv):
    channels, count = _check(inv)
    x = inv["input"]
    if x.numel == 0:
        return
    x3 = np.ascontiguousarray(x.data()).reshape(x.shape[0], channels, -1)
    training, eps = inv["training"], inv["eps"]
    weight, bias = _channel(inv, "weight", 1.0, channels), _channel(inv, "bias", 0.0, channels)
    invstd, scale, shift = (np.empty(channels, np.float32) for _ in range(3))
    if training:
        mean, var = _batch_stats(inv, x3, count)
        arrays = {"mean": mean, "var": var, "weight": weight, "bias": bias}
        dests = [invstd, scale, shift]
        update = ()
        if inv["runningMean"] is not None and inv["runningVar"] is not None:
            arrays.update(runningMean=inv["runningMean"].data(), runningVar=inv["runningVar"].data())
            dests += [inv["runningMean"].data(), inv["runningVar"].data()]
            update = (inv["momentum"], count / (count - 1))
        _scale_shift(inv, arrays, eps, dests, update)
        inv["saveMean"].data()[...] = mean
        inv["saveInvstd"].data()[...] = invstd
    else:
        arrays = {"mean": inv["runningMean"].data(), "var": inv["runningVar"].data(), "weight": weight,
                  "bias": bias}
        _scale_shift(inv, arrays, eps, [invstd, scale, shift], ())
    dsl = _dsl()

    def normalise(p):
        shape = tuple(int(d) for d in p[0].shape)
        y = dsl.vadd(dsl.vmul(_f32(p[0]), dsl.broadcast(p[1], shape)), dsl.broadcast(p[2], shape))
        return [graph.as_dtype(y, x.dtype)]

    run_graph(inv, ("normalise",), {"x": x3, "scale": scale.reshape(1, channels, 1),
                                    "shift": shift.reshape(1, channels, 1)}, [inv["output"].data()], normalise)


_PARAMS = (
    Param("input", "tensor"), Param("weight", "tensor", optional=True), Param("bias", "tensor", optional=True),
    Param("runningMean", "tensor", optional=True), Param("runningVar", "tensor", optional=True),
    Param("training", "bool"), Param("momentum", "double"), Param("eps", "double"),
    Param("output", "tensor", output=True), Param("saveMean", "tensor", optional=True, output=True),
    Param("saveInvstd", "tensor", optional=True, output=True),
)

OPS = (Op("aclnnBatchNorm", _PARAMS, _batch_norm, "batch normalisation over dim 1 (training or inference)"),)

__all__ = ["OPS"]
