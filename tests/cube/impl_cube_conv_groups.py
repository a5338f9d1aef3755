"""A grouped Conv2D op file in the style of CANN's ``impl/conv2d.py`` (the later one, whose conv passes ``groups``
to the compute): ``check_conv_shape`` with ``groups``, an NC1HWC0 feature map, the filter in the grouped FRACTAL_Z
layout, ``te.lang.cce.conv`` with ``para_dict["group"]``, an optional bias, ``auto_schedule``, ``cce_build_code``.

MindSpore makes the grouped FRACTAL_Z filter with a TransData that reads the node's group count; npusim's Custom
path converts fractal formats without one, so this op's filter input is declared in the default format and the
caller hands it already converted, with the filter's NCHW shape as the ``filter_shape`` attribute (MindSpore's
``ori_shape``).  The op sets ``ori_shape`` attrs on its placeholders, as CANN's op files do: the conv sizes the
groups from them."""
import te.lang.cce
from te import tvm
from te.platform.fusion_manager import fusion_manager
from te.utils.op_utils import *
from topi import generic


@fusion_manager.register("conv2d")
def conv2d_compute(fmap, weight, bias, outputs, para_dict):
    return te.lang.cce.conv(fmap, weight, para_dict)


@check_op_params(REQUIRED_INPUT, REQUIRED_INPUT, OPTION_INPUT, REQUIRED_OUTPUT, REQUIRED_ATTR_LIST_INT,
                 REQUIRED_ATTR_LIST_INT, REQUIRED_ATTR_LIST_INT, REQUIRED_ATTR_INT, REQUIRED_ATTR_LIST_INT,
                 KERNEL_NAME)
def conv2d(inputs, weights, bias, outputs, strides, pads, dilations, groups, filter_shape,
           kernel_name="conv2d"):
    shape_in, shape_w = list(inputs["ori_shape"]), list(filter_shape)
    pad_top, pad_bottom, pad_left, pad_right = pads
    te.lang.cce.check_conv_shape(shape_in, shape_w, pad_top, pad_bottom, pad_left, pad_right, strides[2],
                                 strides[3], inputs["dtype"], weights["dtype"], None, None, dilations[2],
                                 dilations[3], None, groups)
    fmap = tvm.placeholder(inputs["shape"], name="Fmap", dtype=inputs["dtype"],
                           attrs={"ori_shape": shape_in, "format": inputs["format"]})
    weight = tvm.placeholder(weights["shape"], name="Filter", dtype=weights["dtype"],
                             attrs={"ori_shape": shape_w, "format": "FRACTAL_Z"})
    tensor_list = [fmap, weight]
    bias_tensor = None
    if bias is not None:
        bias_tensor = tvm.placeholder([shape_w[0]], name="bias_tensor", dtype=bias["dtype"])
        tensor_list.append(bias_tensor)
    para_dict = {"pad_h": [pad_top, pad_bottom], "pad_w": [pad_left, pad_right], "stride_h": strides[2],
                 "stride_w": strides[3], "dilate_h": dilations[2], "dilate_w": dilations[3],
                 "filter_h": shape_w[2], "filter_w": shape_w[3], "res_dtype": outputs["dtype"],
                 "bias_tensor": bias_tensor, "group": groups, "kernel_name": kernel_name}
    res = conv2d_compute(fmap, weight, bias_tensor, outputs, para_dict)
    with tvm.target.cce():
        sch = generic.auto_schedule(res)
    tensor_list.append(res)
    te.lang.cce.cce_build_code(sch, {"print_ir": False, "name": kernel_name, "tensor_list": tensor_list})
