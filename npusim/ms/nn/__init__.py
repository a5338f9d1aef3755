"""``mindspore.nn`` (the Cell machinery custom-op scripts use)."""
from npusim.frontend.cell import Cell, CellList, SequentialCell  # noqa: F401
