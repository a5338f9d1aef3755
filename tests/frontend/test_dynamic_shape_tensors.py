"""Issue 11 item 11: ``Tensor(shape=[4, None], dtype=...)`` placeholders, as MindSpore scripts use them.

MindSpore's own check (tests/st/pi_jit/test_tensor.py): ``Tensor(dtype=mstype.float32, shape=[None, 4]).shape ==
(-1, 4)``.  Networks take such tensors as input signatures (``net.set_inputs(x_dyn)``, ``jit(input_signature=...)``)
and are then called with real data of any size in the dynamic dims; using the placeholder itself as data is a
clear error.
"""
import copy
import pickle

import numpy as np
import pytest

import mindspore as ms
import mindspore.nn as nn
import mindspore.ops as ops
from mindspore import Tensor, jit
from mindspore.common import dtype as mstype
from npusim.errors import DynamicShapeDataError, InputSignatureError


def test_tensor_shape():
    x = Tensor(dtype=mstype.float32, shape=[None, 4])
    s = x.shape
    assert s == (-1, 4)
    assert isinstance(x, Tensor) and x.dtype == mstype.float32 and x.ndim == 2 and x.dim() == 2
    assert Tensor(shape=[4, None], dtype=ms.int32).shape == (4, -1)
    assert Tensor(dtype=ms.float16).shape == (-2,)          # dtype only: dynamic rank, as MindSpore
    static = Tensor(shape=(2, 3), dtype=ms.int32)           # no None: a real (zero) tensor, as before
    assert type(static) is Tensor and static.asnumpy().shape == (2, 3)


def test_placeholder_has_no_data():
    x = Tensor(shape=[4, None], dtype=ms.float32)
    for use in (lambda: x.asnumpy(), lambda: x + 1, lambda: ops.relu(x), lambda: x.size, lambda: float(x)):
        with pytest.raises(DynamicShapeDataError, match=r"Tensor\(shape=\[4, -1\], dtype=Float32.*no data"):
            use()
    assert "shape=[4, -1]" in repr(x)
    for clone in (copy.deepcopy(x), pickle.loads(pickle.dumps(x))):   # a signature can be copied like a Tensor
        assert isinstance(clone, Tensor) and clone.shape == (4, -1) and clone.dtype == ms.float32


def test_placeholder_as_custom_input_is_a_clear_error():
    op = ops.Custom(lambda a: a * 2, out_shape=lambda s: s, out_dtype=lambda t: t, func_type="pyfunc")
    with pytest.raises(DynamicShapeDataError, match="set_inputs"):
        op(Tensor(shape=[None, 3], dtype=ms.float32))


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.square = ops.Custom(lambda a: a * a, out_shape=lambda s: s, out_dtype=lambda t: t, func_type="pyfunc")
        self.relu = ops.ReLU()

    def construct(self, x):
        return self.relu(self.square(x) - 2.0)


def test_set_inputs_with_dynamic_dims_then_run_any_size():
    net = Net()
    x_dyn = Tensor(shape=[None, 3], dtype=ms.float32)
    net.set_inputs(x_dyn)
    assert net.get_inputs() == (x_dyn,)
    for rows in (1, 4, 7):
        x = np.arange(rows * 3, dtype=np.float32).reshape(rows, 3)
        np.testing.assert_allclose(net(Tensor(x)).asnumpy(), np.maximum(x * x - 2.0, 0))


def test_set_inputs_mismatches_use_mindspores_messages():
    net = Net()
    net.set_inputs(Tensor(shape=[None, 3], dtype=ms.float32))
    with pytest.raises(InputSignatureError, match=r"1th input shape of 'set_inputs'.*\(-1, 3\).*\(2, 4\)"):
        net(Tensor(np.ones((2, 4), np.float32)))
    with pytest.raises(InputSignatureError, match=r"1th input dims of 'set_inputs'"):
        net(Tensor(np.ones((2, 3, 1), np.float32)))
    with pytest.raises(InputSignatureError, match=r"1th input type of 'set_inputs'.*Float32.*Float16"):
        net(Tensor(np.ones((2, 3), np.float16)))
    with pytest.raises(InputSignatureError, match=r"number of 'set_inputs'"):
        net(Tensor(np.ones((2, 3), np.float32)), Tensor(np.ones((2, 3), np.float32)))
    with pytest.raises(TypeError, match=r"must be Tensor"):
        net(np.ones((2, 3), np.float32))


def test_dynamic_rank_signature_takes_any_rank():
    net = Net()
    net.set_inputs(Tensor(dtype=ms.float32))
    assert net(Tensor(np.ones((2, 2, 2), np.float32))).shape == (2, 2, 2)
    assert net(Tensor(np.ones(5, np.float32))).shape == (5,)


def test_jit_input_signature():
    @jit(input_signature=Tensor(shape=[None, 2], dtype=ms.float32))
    def double(x):
        return x * 2

    np.testing.assert_array_equal(double(Tensor(np.ones((3, 2), np.float32))).asnumpy(), np.full((3, 2), 2))
    with pytest.raises(InputSignatureError, match="input_signature"):
        double(Tensor(np.ones((3, 3), np.float32)))


def test_jit_input_signature_on_construct():
    class Scale(nn.Cell):
        @jit(input_signature=(Tensor(shape=[None], dtype=ms.float32),))
        def construct(self, x):
            return x * 3

    np.testing.assert_array_equal(Scale()(Tensor(np.ones(4, np.float32))).asnumpy(), np.full(4, 3))
    with pytest.raises(InputSignatureError):
        Scale()(Tensor(np.ones((2, 2), np.float32)))
