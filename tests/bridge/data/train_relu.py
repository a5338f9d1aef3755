"""Train a small nn.Dense network for 20 steps with real MindSpore; print one line of losses per run.

    npusim run --mindspore real train_relu.py MODES RELUS OPTIMIZERS
    (comma lists; MODES of GRAPH, PYNATIVE; RELUS of tbe, builtin; OPTIMIZERS of sgd, momentum)

RELU tbe is custom_relu.py (a CANN-style TBE op file) as ops.Custom(func_type="tbe") with a bprop; builtin is
ops.ReLU.  Each line reads "MODE RELU OPTIMIZER: loss1 loss2 ... loss20" (losses as Python reprs).  An Ascend-style
script: device_target "Ascend".
"""
import sys

import numpy as np
import mindspore as ms
from mindspore import Tensor, context, nn, ops
from mindspore.ops import CustomRegOp, DataType, custom_info_register

from custom_relu import custom_relu

context.set_context(device_target="Ascend")

relu_info = (CustomRegOp("CustomRelu").input(0, "x").output(0, "y")
             .dtype_format(DataType.F32_Default, DataType.F32_Default)
             .dtype_format(DataType.F16_Default, DataType.F16_Default)
             .target("Ascend").get_op_info())
custom_relu = custom_info_register(relu_info)(custom_relu)


def relu_bprop(x, out, dout):
    return (dout * ops.cast(out > 0, dout.dtype),)


class Net(nn.Cell):
    def __init__(self, rng, relu):
        super().__init__()
        self.fc1 = nn.Dense(8, 16, weight_init=Tensor(rng.standard_normal((16, 8)).astype(np.float32) * 0.5),
                            bias_init=Tensor(rng.standard_normal(16).astype(np.float32) * 0.1))
        self.fc2 = nn.Dense(16, 4, weight_init=Tensor(rng.standard_normal((4, 16)).astype(np.float32) * 0.5),
                            bias_init=Tensor(np.zeros(4, np.float32)))
        if relu == "tbe":
            self.relu = ops.Custom(custom_relu, out_shape=lambda x: x, out_dtype=lambda x: x, func_type="tbe",
                                   bprop=relu_bprop)
        else:
            self.relu = ops.ReLU()

    def construct(self, x):
        return self.fc2(self.relu(self.fc1(x)))


def train(relu, optimizer_name):
    """The 20 losses of one run."""
    rng = np.random.default_rng(7)
    net = Net(rng, relu)
    x = Tensor(rng.standard_normal((32, 8)).astype(np.float32))
    y = Tensor(rng.standard_normal((32, 4)).astype(np.float32))
    with_loss = nn.WithLossCell(net, nn.MSELoss())
    if optimizer_name == "sgd":
        optimizer = nn.SGD(net.trainable_params(), learning_rate=0.05)
    else:
        optimizer = nn.Momentum(net.trainable_params(), learning_rate=0.05, momentum=0.9)
    train_step = nn.TrainOneStepCell(with_loss, optimizer)
    train_step.set_train()
    return [float(train_step(x, y).asnumpy()) for _ in range(20)]


def main(modes, relus, optimizers):
    for mode in modes.split(","):
        context.set_context(mode=getattr(context, f"{mode}_MODE"))
        for relu in relus.split(","):
            for optimizer_name in optimizers.split(","):
                losses = train(relu, optimizer_name)
                print(f"{mode} {relu} {optimizer_name}: " + " ".join(map(repr, losses)))


if __name__ == "__main__":
    main(*sys.argv[1:4])
