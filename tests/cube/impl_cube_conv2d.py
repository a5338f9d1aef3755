"""A Conv2D op file in the CANN 2020 style (canndev ``impl/conv2d.py`` shape): NCHW ori_shapes, an NC1HWC0 feature
map and a FRACTAL_Z filter as MindSpore hands them for F16_5HD / F16_FracZ rows, ``check_conv_shape``, the conv
compute with an optional bias and a fused relu, ``auto_schedule`` and ``cce_build_code``."""
import te.lang.cce
from te import tvm
from te.platform.fusion_manager import fusion_manager
from te.utils.op_utils import *
from topi import generic


@fusion_manager.register("conv2d")
def conv2d_compute(fmap, weight, bias, outputs, para_dict, fuse_relu=False):
    res = te.lang.cce.conv(fmap, weight, para_dict)
    return te.lang.cce.vrelu(res) if fuse_relu else res


@check_op_params(REQUIRED_INPUT, REQUIRED_INPUT, OPTION_INPUT, REQUIRED_OUTPUT, REQUIRED_ATTR_LIST_INT,
                 REQUIRED_ATTR_LIST_INT, REQUIRED_ATTR_LIST_INT, OPTION_ATTR_BOOL, KERNEL_NAME)
def conv2d(inputs, weights, bias, outputs, strides, pads, dilations, fuse_relu=False, kernel_name="conv2d"):
    shape_in, shape_w = list(inputs["ori_shape"]), list(weights["ori_shape"])
    pad_top, pad_bottom, pad_left, pad_right = pads
    te.lang.cce.check_conv_shape(shape_in, shape_w, pad_top, pad_bottom, pad_left, pad_right, strides[2],
                                 strides[3], inputs["dtype"], weights["dtype"], None, None, dilations[2],
                                 dilations[3])
    fmap = tvm.placeholder(inputs["shape"], name="Fmap", dtype=inputs["dtype"],
                           attrs={"ori_shape": shape_in, "format": inputs["format"]})
    weight = tvm.placeholder(weights["shape"], name="Filter", dtype=weights["dtype"],
                             attrs={"ori_shape": shape_w, "format": weights["format"]})
    tensor_list = [fmap, weight]
    bias_tensor = None
    if bias is not None:
        bias_tensor = tvm.placeholder([shape_w[0]], name="bias_tensor", dtype=bias["dtype"])
        tensor_list.append(bias_tensor)
    para_dict = {"pad_h": [pad_top, pad_bottom], "pad_w": [pad_left, pad_right], "stride_h": strides[2],
                 "stride_w": strides[3], "dilate_h": dilations[2], "dilate_w": dilations[3],
                 "filter_h": shape_w[2], "filter_w": shape_w[3], "res_dtype": outputs["dtype"],
                 "bias_tensor": bias_tensor, "kernel_name": kernel_name}
    res = conv2d_compute(fmap, weight, bias_tensor, outputs, para_dict, fuse_relu)
    with tvm.target.cce():
        sch = generic.auto_schedule(res)
    tensor_list.append(res)
    te.lang.cce.cce_build_code(sch, {"print_ir": False, "need_build": False, "name": kernel_name,
                                     "tensor_list": tensor_list})
