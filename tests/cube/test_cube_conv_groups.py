"""Issue 15: grouped Conv2D on the cube (one cube matmul per extended group) through ops.Custom(func_type="tbe"),
against a numpy grouped convolution (float32 accumulation of float16 inputs), on Ascend910 and Ascend910B1; and the
errors for what CANN rejects.

The filter goes in as the grouped FRACTAL_Z MindSpore's TransData makes (``mag`` groups share one extended group
of ``cin1_g`` channel blocks x ``cout1_g`` column fractals, block diagonal; see te_compat.dsl.conv), built here by
``_frac_z_groups`` from the NCHW filter.
"""
import importlib
import math

import numpy as np
import pytest

from mindspore import Tensor, ops
from mindspore.ops import CustomRegOp, DataType

from npusim.errors import TbeArgumentError
from npusim.sim import profile, set_chip

CHIPS = ["Ascend910", "Ascend910B1"]
C0 = 16


def _reg():
    five, f16 = DataType.F16_5HD, DataType.F16_Default
    return (CustomRegOp("Conv2DGroups").input(0, "x").input(1, "filter").input(2, "bias", "optional")
            .output(0, "y").attr("strides", "required", "listInt").attr("pads", "required", "listInt")
            .attr("dilations", "required", "listInt").attr("groups", "required", "int")
            .attr("filter_shape", "required", "listInt")
            .dtype_format(five, f16, f16, five).target("Ascend").get_op_info())


def _group_sizes(cin_g, cout_g, groups):
    mag = min(math.lcm(math.lcm(cin_g, C0) // cin_g, math.lcm(cout_g, 16) // cout_g), groups)
    return mag, -(-groups // mag), -(-mag * cin_g // C0), -(-mag * cout_g // 16)


def _frac_z_groups(w, groups):
    """The NCHW filter ``w`` ([Cout, Cin / groups, kh, kw]) in the grouped FRACTAL_Z layout."""
    cout, cin_g, kh, kw = w.shape
    cout_g = cout // groups
    mag, real_g, cin1_g, cout1_g = _group_sizes(cin_g, cout_g, groups)
    out = np.zeros((real_g * cin1_g * kh * kw, cout1_g, 16, C0), w.dtype)
    for group in range(groups):
        extended, e = divmod(group, mag)
        for d in range(cout_g):
            co = e * cout_g + d
            for c in range(cin_g):
                ci = e * cin_g + c
                for i in range(kh):
                    for j in range(kw):
                        row = extended * cin1_g * kh * kw + ((ci // C0) * kh + i) * kw + j
                        out[row, co // 16, co % 16, ci % C0] = w[group * cout_g + d, c, i, j]
    return out


def _reference(x, w, bias, groups, stride, pad, dilation):
    n, cin, h, width = x.shape
    cout, cin_g, kh, kw = w.shape
    cout_g = cout // groups
    xp = np.pad(x.astype(np.float32), ((0, 0), (0, 0), (pad[0], pad[1]), (pad[2], pad[3])))
    ho = (h + pad[0] + pad[1] - (kh - 1) * dilation[0] - 1) // stride[0] + 1
    wo = (width + pad[2] + pad[3] - (kw - 1) * dilation[1] - 1) // stride[1] + 1
    out = np.zeros((n, cout, ho, wo), np.float32)
    for group in range(groups):
        xs = xp[:, group * cin_g:(group + 1) * cin_g]
        ws = w[group * cout_g:(group + 1) * cout_g].astype(np.float32)
        for i in range(kh):
            for j in range(kw):
                rows = slice(i * dilation[0], i * dilation[0] + stride[0] * (ho - 1) + 1, stride[0])
                cols = slice(j * dilation[1], j * dilation[1] + stride[1] * (wo - 1) + 1, stride[1])
                out[:, group * cout_g:(group + 1) * cout_g] += np.einsum("nchw,oc->nohw", xs[:, :, rows, cols],
                                                                         ws[:, :, i, j])
    if bias is not None:
        out += bias.astype(np.float32)[None, :, None, None]
    return out


def _run(x, w, bias, groups, stride=(1, 1), pad=(0, 0, 0, 0), dilation=(1, 1)):
    ref = _reference(x, w, bias, groups, stride, pad, dilation)
    impl = importlib.import_module("impl_cube_conv_groups").conv2d
    op = ops.Custom(impl, out_shape=ref.shape, out_dtype="float16", func_type="tbe", reg_info=_reg())
    tensors = [Tensor(x), Tensor(_frac_z_groups(w, groups))] + ([Tensor(bias)] if bias is not None else [])
    with profile() as prof:
        out = op(*tensors, [1, 1, *stride], list(pad), [1, 1, *dilation], groups, list(w.shape)).asnumpy()
    (record,) = [r for r in prof.records if r.kernel.name.startswith("conv2d")]
    return out, ref, record


def _f16(shape, seed):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float16)


@pytest.mark.parametrize("chip", CHIPS)
def test_three_groups_over_two_extended_groups_with_stride_pad_dilation_and_bias(chip):
    # cin_g = cout_g = 8: two groups share a 16-channel extended group; the third fills half of a second one
    set_chip(chip)
    x, w, bias = _f16((2, 24, 9, 7), 31), _f16((24, 8, 3, 3), 32), _f16((24,), 33)
    assert _group_sizes(8, 8, 3) == (2, 2, 1, 1)
    out, ref, record = _run(x, w, bias, 3, stride=(2, 1), pad=(1, 1, 2, 0), dilation=(1, 2))
    assert out.shape == ref.shape == (2, 24, 5, 5)
    np.testing.assert_allclose(out.astype(np.float32), ref, rtol=2e-3, atol=3e-2)
    assert record.cost.busy_cycles("M") > 0


@pytest.mark.parametrize("chip", CHIPS)
def test_groups_packed_into_one_extended_group(chip):
    # cin_g = 4, cout_g = 6: both groups fit one block-diagonal filter (a single matmul)
    set_chip(chip)
    x, w = _f16((1, 8, 6, 6), 34), _f16((12, 4, 3, 3), 35)
    assert _group_sizes(4, 6, 2)[1] == 1
    out, ref, _ = _run(x, w, None, 2, pad=(1, 1, 1, 1))
    np.testing.assert_allclose(out.astype(np.float32), ref, rtol=2e-3, atol=3e-2)


def test_depthwise_as_groups_equal_to_channels():
    x, w, bias = _f16((1, 16, 5, 5), 36), _f16((16, 1, 3, 3), 37), _f16((16,), 38)
    out, ref, _ = _run(x, w, bias, 16, pad=(1, 1, 1, 1))
    np.testing.assert_allclose(out.astype(np.float32), ref, rtol=2e-3, atol=3e-2)


def test_check_conv_shape_rejects_channels_that_do_not_split_into_groups():
    import te.lang.cce
    with pytest.raises(TbeArgumentError, match="conv2d: input channels 8 != filter channels 3 x groups 2"):
        te.lang.cce.check_conv_shape([1, 8, 8, 8], [12, 3, 3, 3], 0, 0, 0, 0, 1, 1, "float16", "float16",
                                     groups=2)
    with pytest.raises(TbeArgumentError, match="conv2d: output channels 9 must be a multiple of groups 2"):
        te.lang.cce.check_conv_shape([1, 8, 8, 8], [9, 4, 3, 3], 0, 0, 0, 0, 1, 1, "float16", "float16",
                                     groups=2)
    with pytest.raises(TbeArgumentError, match="conv2d: groups must be a positive int"):
        te.lang.cce.check_conv_shape([1, 8, 8, 8], [8, 8, 3, 3], 0, 0, 0, 0, 1, 1, "float16", "float16",
                                     groups=0)
    # the 2020 signature has no groups: a filter with fewer channels than the feature map is rejected
    with pytest.raises(TbeArgumentError, match="input channels 8 != filter channels 4 x groups 1"):
        te.lang.cce.check_conv_shape([1, 8, 8, 8], [8, 4, 3, 3], 0, 0, 0, 0, 1, 1, "float16", "float16", None)


def _placeholders(weight_shape, ori=True):
    from te import tvm
    fmap = tvm.placeholder((1, 2, 6, 6, 16), name="fmap", dtype="float16",
                           attrs={"ori_shape": [1, 24, 6, 6]} if ori else {})
    weight = tvm.placeholder(weight_shape, name="w", dtype="float16",
                             attrs={"ori_shape": [24, 8, 3, 3]} if ori else {})
    return fmap, weight


def test_conv_group_errors_name_the_op_and_cause():
    import te.lang.cce
    para = {"filter_h": 3, "filter_w": 3, "group": 3}
    fmap, weight = _placeholders((18, 1, 16, 16))
    assert [int(d) for d in te.lang.cce.conv(fmap, weight, para).shape] == [1, 2, 4, 4, 16]
    fmap, weight = _placeholders((9, 1, 16, 16))
    with pytest.raises(TbeArgumentError, match="conv: weight \\[9, 1, 16, 16\\] is not the grouped FRACTAL_Z"):
        te.lang.cce.conv(fmap, weight, para)
    fmap, weight = _placeholders((18, 1, 16, 16), ori=False)
    with pytest.raises(TbeArgumentError, match="conv: group=3 needs para_dict\\['group_dict'\\]"):
        te.lang.cce.conv(fmap, weight, para)
    group_dict = {"real_g": 2, "mag_factor": 2, "cin1_g": 1, "cout_g": 16, "cin_ori": 8, "cout_ori": 8}
    res = te.lang.cce.conv(fmap, weight, dict(para, group_dict=group_dict))
    assert [int(d) for d in res.shape] == [1, 2, 4, 4, 16]
    with pytest.raises(TbeArgumentError, match="conv: group must be a positive int"):
        te.lang.cce.conv(fmap, weight, dict(para, group=-1))
