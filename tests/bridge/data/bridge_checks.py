"""Checks of the bridge's op semantics, run as `npusim run --mindspore real bridge_checks.py`: prints one JSON
object (check name → result) on the last line of stdout."""
import json

import numpy as np
import mindspore as ms
from mindspore import Tensor, context, nn, ops
from mindspore.ops import CustomRegOp, DataType, custom_info_register, kernel

import npusim.bridge
from npusim.bridge import custom as bridge_custom
from npusim.errors import BridgeAttributeError, BridgeUnsupportedError

results = {}
context.set_context(device_target="Ascend", max_device_memory="30GB",
                    ascend_config={"precision_mode": "must_keep_origin_dtype"})
results["mindspore_target"] = context.get_context("device_target")
results["requested_target"] = npusim.bridge.requested_target()


@custom_info_register(CustomRegOp().input(0, "x").output(0, "y").attr("scale", "required", "float")
                      .dtype_format(DataType.F32_Default, DataType.F32_Default).target("Ascend").get_op_info())
def scale_op(x, y, scale, kernel_name="scale_op"):
    import te.lang.cce
    from te import tvm
    data = tvm.placeholder(x.get("shape"), name="data", dtype=x.get("dtype").lower())
    res = te.lang.cce.vmuls(data, tvm.const(scale, "float32"))
    with tvm.target.cce():
        schedule = te.lang.cce.auto_schedule(res)
    te.lang.cce.cce_build_code(schedule, {"name": kernel_name, "tensor_list": [data, res]})


def scale_bprop(x, scale, out, dout):
    return (dout * scale,)     # no gradient for the attribute: the bridge adds it


scale = ops.Custom(scale_op, out_shape=lambda x, _: x, out_dtype=lambda x, _: x, func_type="tbe", bprop=scale_bprop)


class ScaleNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.op = scale

    def construct(self, x):
        return self.op(x, 3.0) * x


@ms.jit
def scale_plus_one(t):
    return scale(t, 3.0) + 1


x = Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
for mode_name in ("PYNATIVE", "GRAPH"):
    context.set_context(mode=getattr(context, f"{mode_name}_MODE"))
    results[f"{mode_name} forward"] = ScaleNet()(x).asnumpy().tolist()
    results[f"{mode_name} grad"] = ms.grad(ScaleNet())(x).asnumpy().tolist()
    results[f"{mode_name} jit"] = scale_plus_one(x).asnumpy().tolist()

context.set_context(mode=context.PYNATIVE_MODE)
dispatched = []
real_call = bridge_custom.RealCustom.__call__
bridge_custom.RealCustom.__call__ = lambda self, *args: dispatched.append(1) or real_call(self, *args)
results["fast path value"] = scale(x, 2.0).asnumpy().tolist()
results["fast path dispatches"] = len(dispatched)
ms.grad(ScaleNet())(x)
results["grad dispatches"] = len(dispatched)
bridge_custom.RealCustom.__call__ = real_call


def error_of(call):
    try:
        call()
    except (BridgeAttributeError, BridgeUnsupportedError) as exc:
        return [type(exc).__name__, str(exc)]
    except Exception as exc:  # noqa: BLE001 - reported for the test to show
        return ["other " + type(exc).__name__, str(exc)[:300]]
    return None


dynamic = ops.Custom(scale_op, out_shape=lambda x, _: [-1], out_dtype=lambda x, _: x, func_type="tbe")
results["dynamic shape"] = error_of(lambda: dynamic(x, 2.0))
results["bfloat16"] = error_of(lambda: scale(Tensor(np.ones(3), ms.bfloat16), 2.0))


class StrNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.op = ops.Custom(scale_op, out_shape=lambda x, _, __: x, out_dtype=lambda x, _, __: x, func_type="tbe")

    def construct(self, t):
        return self.op(t, 2.0, "undeclared")


context.set_context(mode=context.GRAPH_MODE)
results["undeclared str in graph"] = error_of(lambda: StrNet()(x))
context.set_context(mode=context.PYNATIVE_MODE)


@kernel
def hybrid_add(a, b):
    c = output_tensor(a.shape, a.dtype)
    for i0 in range(a.shape[0]):
        for i1 in range(a.shape[1]):
            c[i0, i1] = a[i0, i1] + b[i0, i1]
    return c


hybrid = ops.Custom(hybrid_add, out_shape=lambda a, _: a, out_dtype=lambda a, _: a, func_type="hybrid")
results["hybrid simulated"] = isinstance(hybrid, bridge_custom.Custom) and hybrid._sim is not None
results["hybrid value"] = hybrid(x, x).asnumpy().tolist()
results["pyfunc untouched"] = ops.Custom(lambda a: a * 2, out_shape=lambda a: a, out_dtype=lambda a: a,
                                         func_type="pyfunc")._sim is None
print(json.dumps(results))
