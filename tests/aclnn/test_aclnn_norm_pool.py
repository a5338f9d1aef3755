"""aclnnBatchNorm (training and inference) and aclnnAvgPool2d against numpy."""
import numpy as np
import pytest

from aclnn_data import assert_close, data
from npusim.aclnn import AclIntArray, AclnnError, AclTensor
from npusim.aclnn.ops.pool import pooled_size


def channel_shape(shape):
    out = [1] * len(shape)
    out[1] = shape[1]
    return out


@pytest.mark.parametrize("dtype, shape", [("float32", (4, 3, 5, 6)), ("float16", (8, 3)), ("float32", (2, 4, 7))])
def test_batch_norm_training_normalises_with_batch_statistics(acl, rng, dtype, shape):
    x = (data(rng, shape, dtype) * 2 + 1).astype(dtype)
    channels = shape[1]
    weight, bias = data(rng, (channels,), "float32"), data(rng, (channels,), "float32")
    running_mean, running_var = np.zeros(channels, np.float32), np.ones(channels, np.float32)
    out = np.zeros(shape, dtype)
    save_mean, save_invstd = np.zeros(channels, np.float32), np.zeros(channels, np.float32)
    acl("aclnnBatchNorm", AclTensor(x), AclTensor(weight), AclTensor(bias), AclTensor(running_mean),
        AclTensor(running_var), True, 0.1, 1e-5, AclTensor(out), AclTensor(save_mean), AclTensor(save_invstd))
    axes = tuple(d for d in range(len(shape)) if d != 1)
    wide = x.astype(np.float64)
    mean, var = wide.mean(axes), wide.var(axes)
    count = wide.size // channels
    cs = channel_shape(shape)
    expected = (wide - mean.reshape(cs)) / np.sqrt(var.reshape(cs) + 1e-5) * weight.reshape(cs) + bias.reshape(cs)
    np.testing.assert_allclose(out.astype(np.float64), expected, atol=2e-2 if dtype == "float16" else 1e-4)
    np.testing.assert_allclose(save_mean, mean, atol=1e-5)
    np.testing.assert_allclose(save_invstd, 1 / np.sqrt(var + 1e-5), rtol=1e-4)
    np.testing.assert_allclose(running_mean, 0.1 * mean, atol=1e-5)
    np.testing.assert_allclose(running_var, 0.9 + 0.1 * var * count / (count - 1), rtol=1e-4)


def test_batch_norm_inference_uses_running_statistics_and_null_affine(acl, rng):
    x = data(rng, (2, 3, 4), "float32")
    running_mean, running_var = data(rng, (3,), "float32"), data(rng, (3,), "float32", 0.5, 2)
    out = np.zeros_like(x)
    before = running_mean.copy()
    acl("aclnnBatchNorm", AclTensor(x), None, None, AclTensor(running_mean), AclTensor(running_var), False, 0.1,
        1e-3, AclTensor(out), None, None)
    cs = channel_shape(x.shape)
    assert_close(out, (x - running_mean.reshape(cs)) / np.sqrt(running_var.reshape(cs) + 1e-3))
    np.testing.assert_array_equal(running_mean, before)


def test_batch_norm_errors(acl):
    x = AclTensor(np.ones((2, 3), np.float32))
    out = AclTensor(np.zeros((2, 3), np.float32))
    stat = AclTensor(np.zeros(3, np.float32))
    with pytest.raises(AclnnError, match=r"aclnnBatchNorm: argument 3 'runningMean': is null, but inference"):
        acl("aclnnBatchNorm", x, None, None, None, stat, False, 0.1, 1e-5, out, None, None)
    with pytest.raises(AclnnError, match=r"aclnnBatchNorm: argument 1 'weight': shape \[2\] must be \[3\]"):
        acl("aclnnBatchNorm", x, AclTensor(np.ones(2, np.float32)), None, stat, stat, True, 0.1, 1e-5, out, stat, stat)
    with pytest.raises(AclnnError, match=r"aclnnBatchNorm: argument 9 'saveMean': is null, but training"):
        acl("aclnnBatchNorm", x, None, None, stat, stat, True, 0.1, 1e-5, out, None, stat)
    with pytest.raises(AclnnError, match=r"argument 0 'input': training needs more than 1 value per channel"):
        acl("aclnnBatchNorm", AclTensor(np.ones((1, 3), np.float32)), None, None, stat, stat, True, 0.1, 1e-5,
            AclTensor(np.zeros((1, 3), np.float32)), stat, stat)


def reference_avg_pool(x, kernel, stride, pad, ceil, include_pad, divisor):
    height, width = x.shape[-2:]
    oh, ow = (pooled_size(height, kernel[0], stride[0], pad[0], ceil),
              pooled_size(width, kernel[1], stride[1], pad[1], ceil))
    out = np.zeros(x.shape[:-2] + (oh, ow))
    for i in range(oh):
        for j in range(ow):
            hs, ws = i * stride[0] - pad[0], j * stride[1] - pad[1]
            he, we = min(hs + kernel[0], height + pad[0]), min(ws + kernel[1], width + pad[1])
            pool = (he - hs) * (we - ws)
            hs, ws, he, we = max(hs, 0), max(ws, 0), min(he, height), min(we, width)
            total = x[..., hs:he, ws:we].astype(np.float64).sum(axis=(-1, -2))
            out[..., i, j] = total / (divisor or (pool if include_pad else (he - hs) * (we - ws)))
    return out


def pair(values, default=None):
    if not values:
        return default
    return (values[0], values[0]) if len(values) == 1 else tuple(values)


@pytest.mark.parametrize("dtype, shape, kernel, stride, pad, ceil, include_pad, divisor", [
    ("float32", (2, 3, 7, 8), [3], [2], [1], False, True, 0),
    ("float16", (3, 6, 6), [2, 3], [], [0, 1], True, False, 0),
    ("float32", (1, 2, 5, 5), [3, 3], [2, 2], [1, 1], True, False, 4),
    ("float32", (1, 1, 4, 4), [2], [2], [0], False, True, 0),
])
def test_avg_pool2d_matches_pytorch_s_rules(acl, rng, dtype, shape, kernel, stride, pad, ceil, include_pad, divisor):
    x = data(rng, shape, dtype)
    expected = reference_avg_pool(x, pair(kernel), pair(stride, pair(kernel)), pair(pad), ceil, include_pad, divisor)
    out = np.zeros(expected.shape, dtype)
    acl("aclnnAvgPool2d", AclTensor(x), AclIntArray(kernel), AclIntArray(stride), AclIntArray(pad), ceil, include_pad,
        divisor, 0, AclTensor(out))
    assert_close(out, expected, dtype)


def test_avg_pool2d_errors(acl):
    x = AclTensor(np.ones((1, 1, 4, 4), np.float32))
    out = AclTensor(np.zeros((1, 1, 2, 2), np.float32))
    k, s = AclIntArray([2]), AclIntArray([2])
    with pytest.raises(AclnnError, match=r"aclnnAvgPool2d: argument 3 'paddings': \[2, 2\] must be non-negative "
                                         r"and at most half the kernel"):
        acl("aclnnAvgPool2d", x, k, s, AclIntArray([2]), False, True, 0, 0, out)
    with pytest.raises(AclnnError, match=r"aclnnAvgPool2d: argument 7 'cubeMathType': 9 is not a cube math type"):
        acl("aclnnAvgPool2d", x, k, s, AclIntArray([0]), False, True, 0, 9, out)
    with pytest.raises(AclnnError, match=r"aclnnAvgPool2d: argument 8 'out': shape \[1, 1, 2, 2\] must be "
                                         r"\[1, 1, 3, 3\]"):
        acl("aclnnAvgPool2d", x, k, AclIntArray([1]), AclIntArray([0]), False, True, 0, 0, out)
    with pytest.raises(AclnnError, match=r"aclnnAvgPool2d: argument 0 'self': shape \[4, 4\] must be 3-D"):
        acl("aclnnAvgPool2d", AclTensor(np.ones((4, 4), np.float32)), k, s, AclIntArray([0]), False, True, 0, 0, out)
