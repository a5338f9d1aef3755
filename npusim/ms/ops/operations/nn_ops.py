"""``mindspore.ops.operations.nn_ops`` (``from mindspore.ops.operations import nn_ops``): the activation
primitives; the ones npusim lacks raise UnsupportedError naming what it has."""
from npusim.frontend.nn_ops import (  # noqa: F401
    ReLU, ReLU6, Sigmoid, Tanh, Softmax, LogSoftmax, GeLU, FastGeLU, Elu, HSwish, HSigmoid, Softplus, Softsign,
    SeLU, Mish, SiLU,
)
from npusim.ms.ops.unsupported import missing_attribute

__getattr__ = missing_attribute(__name__, "the activation primitives (ReLU, ReLU6, Sigmoid, Tanh, Softmax, "
                                          "LogSoftmax, GeLU, FastGeLU, Elu, HSwish, HSigmoid, Softplus, Softsign, "
                                          "SeLU, Mish, SiLU)")
