"""``mindspore.Tensor``: a numpy array with a MindSpore dtype, operators that record gradients, and MindSpore's printing."""
from __future__ import annotations

import numbers

import numpy as np

from npusim.errors import OpTypeError
from npusim.frontend import dtype as mstype


def _default_array(data) -> np.ndarray:
    """MindSpore's default dtypes: Python float → float32, int → int64, bool → bool; numpy keeps its dtype."""
    if isinstance(data, np.ndarray):
        return data.copy()
    if isinstance(data, np.generic):
        return np.array(data)
    if isinstance(data, bool):
        return np.array(data, dtype=np.bool_)
    if isinstance(data, numbers.Integral):
        return np.array(data, dtype=np.int64)
    if isinstance(data, numbers.Real):
        return np.array(data, dtype=np.float32)
    if isinstance(data, (list, tuple)):
        items = [x.asnumpy() if isinstance(x, Tensor) else x for x in data]
        arr = np.array(items)
        if arr.dtype == np.float64 and not any(isinstance(x, np.ndarray) and x.dtype == np.float64
                                               for x in items):
            arr = arr.astype(np.float32)
        return arr
    raise OpTypeError(f"Tensor: cannot build a tensor from {type(data).__name__}")


class Tensor:
    """A tensor held as a numpy array.

    ``Tensor(input_data, dtype=None, shape=None, init=None)``: input_data is a numpy array, list, tuple, scalar or
    another Tensor; dtype a MindSpore type (``mstype.float32``) or numpy dtype.  ``shape`` + ``dtype`` without data
    makes a zero tensor.
    """

    __array_priority__ = 100  # numpy defers to our operators in mixed expressions
    __slots__ = ("_data", "_node", "_node_index", "__weakref__", "__dict__")

    def __new__(cls, input_data=None, dtype=None, shape=None, *args, **kwargs):
        # None in `shape` and no data: MindSpore's tensor of dynamic shape (an input signature, no values)
        if cls is Tensor and input_data is None and (shape is not None or dtype is not None):
            from npusim.frontend.dynamic_tensor import DynamicShapeTensor, is_dynamic_request
            if is_dynamic_request(input_data, shape, dtype):
                return object.__new__(DynamicShapeTensor)
        return object.__new__(cls)

    def __init__(self, input_data=None, dtype=None, shape=None, init=None, internal=False, const_arg=False,
                 device=None):
        if input_data is None:
            if shape is None:
                raise OpTypeError("Tensor: input_data or shape must be given")
            shape = (shape,) if isinstance(shape, int) else tuple(shape)
            arr = np.zeros(shape, dtype=mstype.to_type(dtype or mstype.float32).np_dtype)
        elif isinstance(input_data, Tensor):
            arr = input_data._data.copy()
        else:
            arr = _default_array(input_data)
        if dtype is not None:
            arr = arr.astype(mstype.to_type(dtype).np_dtype, copy=False)
        self._data = arr
        self._node = None
        self._node_index = 0

    @classmethod
    def _wrap(cls, arr: np.ndarray) -> "Tensor":
        """Wrap an array without copying (internal fast path)."""
        t = object.__new__(cls)
        t._data = arr if isinstance(arr, np.ndarray) else np.asarray(arr)
        t._node = None
        t._node_index = 0
        return t

    # ---- properties -------------------------------------------------------------------------------------------
    @property
    def shape(self) -> tuple:
        return self._data.shape

    @property
    def dtype(self) -> mstype.Type:
        return mstype.to_type(self._data.dtype)

    @property
    def ndim(self) -> int:
        return self._data.ndim

    def dim(self) -> int:
        return self._data.ndim

    @property
    def size(self) -> int:
        return self._data.size

    @property
    def itemsize(self) -> int:
        return self._data.itemsize

    @property
    def nbytes(self) -> int:
        return self._data.nbytes

    @property
    def T(self):
        from npusim.frontend import functional as F
        return F.transpose(self, tuple(reversed(range(self.ndim))))

    def asnumpy(self) -> np.ndarray:
        return self._data

    def numpy(self) -> np.ndarray:
        return self._data

    def __array__(self, dtype=None, copy=None):
        return self._data if dtype is None else self._data.astype(dtype)

    def item(self, *index):
        return self._data.item(*index)

    def tolist(self):
        return self._data.tolist()

    def __len__(self):
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    def __iter__(self):
        for i in range(len(self)):
            yield self[i]

    def __bool__(self):
        return bool(self._data)

    def __float__(self):
        return float(self._data)

    def __int__(self):
        return int(self._data)

    def __index__(self):
        return int(self._data)

    def __hash__(self):
        return id(self)

    # ---- printing ---------------------------------------------------------------------------------------------
    def __str__(self):
        return str(self._data)

    def __repr__(self):
        from npusim.frontend.printing import tensor_repr
        return tensor_repr(self)

    # ---- conversions ------------------------------------------------------------------------------------------
    def astype(self, dtype, copy=True):
        from npusim.frontend import functional as F
        return F.cast(self, dtype)

    def to(self, dtype):
        return self.astype(dtype)

    def float(self):
        return self.astype(mstype.float32)

    def half(self):
        return self.astype(mstype.float16)

    def int(self):
        return self.astype(mstype.int32)

    def copy(self):
        return Tensor._wrap(self._data.copy())

    def set_dtype(self, dtype):
        self._data = self._data.astype(mstype.to_type(dtype).np_dtype)
        return self

    def asnumpy_of(self):  # pragma: no cover - compatibility spelling used nowhere official
        return self._data

    # ---- shape methods (differentiable) -----------------------------------------------------------------------
    def reshape(self, *shape):
        from npusim.frontend import functional as F
        shape = shape[0] if len(shape) == 1 and isinstance(shape[0], (tuple, list)) else shape
        return F.reshape(self, tuple(shape))

    def view(self, *shape):
        return self.reshape(*shape)

    def flatten(self):
        return self.reshape(-1)

    def transpose(self, *axes):
        from npusim.frontend import functional as F
        axes = axes[0] if len(axes) == 1 and isinstance(axes[0], (tuple, list)) else axes
        return F.transpose(self, tuple(axes) if axes else tuple(reversed(range(self.ndim))))

    def sum(self, axis=None, keepdims=False):
        from npusim.frontend import functional as F
        return F.reduce_sum(self, () if axis is None else axis, keepdims)

    def mean(self, axis=None, keep_dims=False):
        from npusim.frontend import functional as F
        return F.reduce_mean(self, () if axis is None else axis, keep_dims)

    def max(self, axis=None, keepdims=False):
        return Tensor._wrap(np.asarray(self._data.max(axis=axis, keepdims=keepdims)))

    def min(self, axis=None, keepdims=False):
        return Tensor._wrap(np.asarray(self._data.min(axis=axis, keepdims=keepdims)))

    def abs(self):
        from npusim.frontend import functional as F
        return F.abs(self)

    def exp(self):
        from npusim.frontend import functional as F
        return F.exp(self)

    def log(self):
        from npusim.frontend import functional as F
        return F.log(self)

    def sqrt(self):
        from npusim.frontend import functional as F
        return F.sqrt(self)

    def square(self):
        from npusim.frontend import functional as F
        return F.square(self)

    def squeeze(self, axis=None):
        return self.reshape(np.squeeze(self._data, axis=axis).shape)

    def expand_dims(self, axis):
        return self.reshape(np.expand_dims(self._data, axis).shape)

    # ---- operators --------------------------------------------------------------------------------------------
    def __add__(self, other):
        from npusim.frontend import functional as F
        return F.add(self, other)

    def __radd__(self, other):
        from npusim.frontend import functional as F
        return F.add(other, self)

    def __sub__(self, other):
        from npusim.frontend import functional as F
        return F.sub(self, other)

    def __rsub__(self, other):
        from npusim.frontend import functional as F
        return F.sub(other, self)

    def __mul__(self, other):
        from npusim.frontend import functional as F
        return F.mul(self, other)

    def __rmul__(self, other):
        from npusim.frontend import functional as F
        return F.mul(other, self)

    def __truediv__(self, other):
        from npusim.frontend import functional as F
        return F.div(self, other)

    def __rtruediv__(self, other):
        from npusim.frontend import functional as F
        return F.div(other, self)

    def __neg__(self):
        from npusim.frontend import functional as F
        return F.neg(self)

    def __pos__(self):
        return self

    def __abs__(self):
        return self.abs()

    def __pow__(self, other):
        from npusim.frontend import functional as F
        return F.pow(self, other)

    def __rpow__(self, other):
        from npusim.frontend import functional as F
        return F.pow(other, self)

    def __matmul__(self, other):
        from npusim.frontend import functional as F
        return F.matmul(self, other)

    def __floordiv__(self, other):
        return _no_grad_binary(np.floor_divide, self, other)

    def __rfloordiv__(self, other):
        return _no_grad_binary(np.floor_divide, other, self)

    def __mod__(self, other):
        return _no_grad_binary(np.mod, self, other)

    def __rmod__(self, other):
        return _no_grad_binary(np.mod, other, self)

    def __eq__(self, other):
        return _no_grad_binary(np.equal, self, other)

    def __ne__(self, other):
        return _no_grad_binary(np.not_equal, self, other)

    def __lt__(self, other):
        return _no_grad_binary(np.less, self, other)

    def __le__(self, other):
        return _no_grad_binary(np.less_equal, self, other)

    def __gt__(self, other):
        return _no_grad_binary(np.greater, self, other)

    def __ge__(self, other):
        return _no_grad_binary(np.greater_equal, self, other)

    def __and__(self, other):
        return _no_grad_binary(np.logical_and if self._data.dtype == np.bool_ else np.bitwise_and, self, other)

    def __or__(self, other):
        return _no_grad_binary(np.logical_or if self._data.dtype == np.bool_ else np.bitwise_or, self, other)

    def __invert__(self):
        return Tensor._wrap(np.invert(self._data))

    def __getitem__(self, index):
        from npusim.frontend import functional as F
        return F.getitem(self, index)

    def __setitem__(self, index, value):
        self._data[_plain_index(index)] = value._data if isinstance(value, Tensor) else value


def _plain_index(index):
    if isinstance(index, Tensor):
        return index._data
    if isinstance(index, tuple):
        return tuple(i._data if isinstance(i, Tensor) else i for i in index)
    return index


def to_array(value, like: np.ndarray | None = None) -> np.ndarray:
    """An operand as an array; Python scalars take ``like``'s dtype (int tensor with float scalar → float32)."""
    if isinstance(value, Tensor):
        return value._data
    if isinstance(value, np.ndarray):
        return value
    if like is not None and isinstance(value, (bool, numbers.Number)) and not isinstance(value, np.generic):
        if isinstance(value, float) and like.dtype.kind in "biu":
            return np.array(value, dtype=np.float32)
        return np.array(value, dtype=like.dtype)
    return _default_array(value)


def promote(a: np.ndarray, b: np.ndarray):
    """MindSpore's implicit conversion: a float dtype wins over int/bool; otherwise numpy's promotion."""
    if a.dtype == b.dtype:
        return a, b
    fa, fb = a.dtype.kind in "fc", b.dtype.kind in "fc"
    if fa and not fb:
        return a, b.astype(a.dtype)
    if fb and not fa:
        return a.astype(b.dtype), b
    common = np.result_type(a.dtype, b.dtype)
    return a.astype(common, copy=False), b.astype(common, copy=False)


def binary_operands(x, y):
    """Both operands as arrays with MindSpore's dtype rules applied."""
    if isinstance(x, Tensor) or isinstance(x, np.ndarray):
        a = to_array(x)
        b = to_array(y, like=a)
    else:
        b = to_array(y)
        a = to_array(x, like=b)
    return promote(a, b)


def _no_grad_binary(fn, x, y):
    a, b = binary_operands(x, y)
    return Tensor._wrap(np.asarray(fn(a, b)))


def as_tensor(value) -> Tensor:
    return value if isinstance(value, Tensor) else Tensor(value)


def zeros_for(shape, np_dtype) -> Tensor:
    return Tensor._wrap(np.zeros(shape, dtype=np_dtype))


def accumulate(total, grad):
    """total + grad (None counts as zero) without recording."""
    if total is None:
        return grad if isinstance(grad, Tensor) else Tensor._wrap(np.asarray(grad))
    g = grad._data if isinstance(grad, Tensor) else np.asarray(grad)
    return Tensor._wrap(total._data + g.astype(total._data.dtype, copy=False))
