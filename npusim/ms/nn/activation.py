"""``mindspore.nn`` activation cells (``nn.ReLU()``, ``nn.Softmax(axis)``, ``nn.GELU(approximate)`` ...): each
calls the activation primitive of :mod:`npusim.frontend.nn_ops`."""
from npusim.frontend import nn_ops
from npusim.frontend.cell import Cell


class _Activation(Cell):
    """A cell applying one primitive to its single input."""

    def __init__(self, primitive):
        super().__init__()
        object.__setattr__(self, "_primitive", primitive)

    def construct(self, x):
        return self._primitive(x)


def _cell(name, primitive_class):
    def __init__(self):
        _Activation.__init__(self, primitive_class())
    return type(name, (_Activation,), {"__init__": __init__, "__doc__": f"``nn.{name}()``"})


ReLU = _cell("ReLU", nn_ops.ReLU)
ReLU6 = _cell("ReLU6", nn_ops.ReLU6)
Sigmoid = _cell("Sigmoid", nn_ops.Sigmoid)
Tanh = _cell("Tanh", nn_ops.Tanh)
FastGelu = _cell("FastGelu", nn_ops.FastGeLU)
HSwish = _cell("HSwish", nn_ops.HSwish)
HSigmoid = _cell("HSigmoid", nn_ops.HSigmoid)
SeLU = _cell("SeLU", nn_ops.SeLU)
Softsign = _cell("Softsign", nn_ops.Softsign)
Mish = _cell("Mish", nn_ops.Mish)
SiLU = _cell("SiLU", nn_ops.SiLU)


class Softmax(_Activation):
    """``nn.Softmax(axis=-1)``."""

    def __init__(self, axis=-1):
        super().__init__(nn_ops.Softmax(axis))


class LogSoftmax(_Activation):
    """``nn.LogSoftmax(axis=-1)``."""

    def __init__(self, axis=-1):
        super().__init__(nn_ops.LogSoftmax(axis))


class GELU(_Activation):
    """``nn.GELU(approximate=True)``: the tanh approximation, or erf with ``approximate=False``."""

    def __init__(self, approximate=True):
        super().__init__(nn_ops.GeLU() if approximate else nn_ops.ErfGeLU())


class ELU(_Activation):
    """``nn.ELU(alpha=1.0)``."""

    def __init__(self, alpha=1.0):
        super().__init__(nn_ops.Elu(alpha))


class LeakyReLU(_Activation):
    """``nn.LeakyReLU(alpha=0.2)``."""

    def __init__(self, alpha=0.2):
        super().__init__(nn_ops.LeakyReLU(alpha))
