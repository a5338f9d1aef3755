"""``mindspore.nn.Cell``: a module whose ``construct`` runs when called; tracks Parameters and sub-cells."""
from __future__ import annotations

from collections import OrderedDict

from npusim.frontend import signature
from npusim.frontend.parameter import Parameter


class Cell:
    """Base class of networks.  Subclasses define ``construct(*inputs)``; ``cell(*inputs)`` calls it."""

    def __init__(self, auto_prefix=True, flags=None):
        object.__setattr__(self, "_params", OrderedDict())
        object.__setattr__(self, "_cells", OrderedDict())
        object.__setattr__(self, "training", False)
        object.__setattr__(self, "requires_grad", False)

    def __setattr__(self, name, value):
        params = self.__dict__.get("_params")
        if params is None and isinstance(value, (Parameter, Cell)):
            Cell.__init__(self)  # a subclass forgot super().__init__(): be forgiving
            params = self.__dict__["_params"]
        if isinstance(value, Parameter):
            if value._named_by_cell:
                value.name = name
            params[name] = value
        elif isinstance(value, Cell):
            self.__dict__["_cells"][name] = value
        object.__setattr__(self, name, value)

    def __delattr__(self, name):
        self.__dict__.get("_params", {}).pop(name, None)
        self.__dict__.get("_cells", {}).pop(name, None)
        object.__delattr__(self, name)

    def construct(self, *inputs, **kwargs):
        raise NotImplementedError(f"{type(self).__name__} must define construct()")

    def __call__(self, *inputs, **kwargs):
        wanted = self.__dict__.get("_input_signature")
        if wanted:
            signature.check_inputs(wanted, inputs, "set_inputs")
        return self.construct(*inputs, **kwargs)

    # ---- input signature (dynamic shapes) -----------------------------------------------------------------------
    def set_inputs(self, *inputs, **kwargs):
        """``Cell.set_inputs(*inputs)``: the signature later calls must fit (``Tensor(shape=[None, 3], ...)`` takes
        any first dim); npusim compiles nothing, it checks each call (see :mod:`npusim.frontend.signature`)."""
        object.__setattr__(self, "_input_signature", tuple(inputs))
        return self

    def get_inputs(self):
        """The inputs given to :meth:`set_inputs`, or None."""
        return self.__dict__.get("_input_signature") or None

    # ---- parameters and cells ---------------------------------------------------------------------------------
    def parameters_and_names(self, name_prefix="", expand=True):
        seen = set()
        for cell_name, cell in self.cells_and_names(name_prefix):
            for pname, param in cell.__dict__.get("_params", {}).items():
                if id(param) not in seen:
                    seen.add(id(param))
                    yield (f"{cell_name}.{pname}" if cell_name else pname), param

    def get_parameters(self, expand=True):
        for _, param in self.parameters_and_names():
            yield param

    def trainable_params(self, recurse=True):
        """Parameters with ``requires_grad=True``, in definition order (a list, like MindSpore)."""
        return [p for p in self.get_parameters() if p.requires_grad]

    def untrainable_params(self, recurse=True):
        return [p for p in self.get_parameters() if not p.requires_grad]

    def cells_and_names(self, cell_name=""):
        yield cell_name, self
        for name, cell in self.__dict__.get("_cells", {}).items():
            prefix = f"{cell_name}.{name}" if cell_name else name
            yield from cell.cells_and_names(prefix)

    def cells(self):
        return list(self.__dict__.get("_cells", {}).values())

    def name_cells(self):
        return OrderedDict(self.__dict__.get("_cells", {}))

    def insert_param_to_cell(self, param_name, param, check_name_contain_dot=True):
        setattr(self, param_name, param)

    # ---- flags MindSpore scripts set ----------------------------------------------------------------------------
    def set_train(self, mode=True):
        for _, cell in self.cells_and_names():
            object.__setattr__(cell, "training", bool(mode))
        return self

    def set_grad(self, requires_grad=True):
        object.__setattr__(self, "requires_grad", bool(requires_grad))
        return self

    def to_float(self, dst_type):
        return self

    def __repr__(self):
        return f"{type(self).__name__}<>"


class SequentialCell(Cell):
    def __init__(self, *args):
        super().__init__()
        cells = args[0] if len(args) == 1 and isinstance(args[0], (list, tuple)) else args
        for i, cell in enumerate(cells):
            setattr(self, str(i), cell)

    def construct(self, x):
        for cell in self.cells():
            x = cell(x)
        return x


class CellList(Cell):
    def __init__(self, cells=()):
        super().__init__()
        for i, cell in enumerate(cells):
            setattr(self, str(i), cell)

    def __getitem__(self, index):
        return self.cells()[index]

    def __len__(self):
        return len(self.cells())

    def __iter__(self):
        return iter(self.cells())
