"""``mindspore.nn`` (the Cell machinery custom-op scripts use, and the activation cells)."""
from npusim.frontend.cell import Cell, CellList, SequentialCell  # noqa: F401
from npusim.ms.nn.activation import (  # noqa: F401
    ReLU, ReLU6, Sigmoid, Tanh, Softmax, LogSoftmax, GELU, FastGelu, ELU, HSwish, HSigmoid, LeakyReLU, SeLU,
    Softsign, Mish, SiLU,
)
