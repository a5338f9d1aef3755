from npusim.frontend.tensor import Tensor  # noqa: F401
