import numpy as np
import pytest

import mindspore as ms
from mindspore import Tensor
from mindspore import dtype as mstype
from npusim.errors import OpTypeError


def test_default_dtypes_follow_mindspore():
    assert Tensor(1.0).dtype == mstype.float32
    assert Tensor(1).dtype == mstype.int64
    assert Tensor(True).dtype == mstype.bool_
    assert Tensor([1.5, 2.0]).dtype == mstype.float32
    assert Tensor([1, 2]).dtype == mstype.int64
    assert Tensor(np.zeros(2)).dtype == mstype.float64
    assert Tensor(np.ones([1, 1, 2, 3]), mstype.float32).dtype == ms.float32


def test_properties_and_numpy_roundtrip():
    arr = np.arange(6, dtype=np.float16).reshape(2, 3)
    t = Tensor(arr)
    assert t.shape == (2, 3) and t.ndim == 2 and t.size == 6
    assert t.dtype == mstype.float16 and str(t.dtype) == "Float16"
    np.testing.assert_array_equal(t.asnumpy(), arr)
    arr[0, 0] = 99  # the tensor owns a copy
    assert t.asnumpy()[0, 0] == 0


def test_shape_dtype_constructor_and_errors():
    z = Tensor(shape=(2, 2), dtype=mstype.int32)
    assert z.dtype == mstype.int32 and z.asnumpy().sum() == 0
    with pytest.raises(TypeError):
        Tensor(object())
    with pytest.raises(OpTypeError):
        Tensor()


def test_arithmetic_broadcasts_and_promotes():
    a = Tensor(np.array([[1.0], [2.0]], np.float32))
    b = Tensor(np.array([10.0, 20.0, 30.0], np.float32))
    np.testing.assert_array_equal((a + b).asnumpy(), [[11, 21, 31], [12, 22, 32]])
    np.testing.assert_array_equal((b - a).asnumpy()[1], [8, 18, 28])
    assert (a * 2).dtype == mstype.float32            # Python scalar takes the tensor's dtype
    assert (Tensor(np.array([1, 2], np.int32)) * 2.5).dtype == mstype.float32
    assert (Tensor(np.array([1], np.float16)) + Tensor(np.array([1], np.float32))).dtype == mstype.float32
    assert (Tensor(np.array([1], np.int32)) + Tensor(np.array([1], np.float16))).dtype == mstype.float16
    np.testing.assert_allclose((1 / Tensor(np.array([4.0], np.float32))).asnumpy(), [0.25])
    np.testing.assert_array_equal((-a).asnumpy(), [[-1], [-2]])
    np.testing.assert_array_equal((a ** 2).asnumpy(), [[1], [4]])


def test_comparisons_give_bool_tensors():
    a = Tensor(np.array([1, 2, 3], np.int32))
    assert (a > 1).dtype == mstype.bool_
    np.testing.assert_array_equal((a == 2).asnumpy(), [False, True, False])
    np.testing.assert_array_equal((a <= 2).asnumpy(), [True, True, False])


def test_indexing_and_setitem():
    t = Tensor(np.arange(12, dtype=np.float32).reshape(3, 4))
    np.testing.assert_array_equal(t[1].asnumpy(), [4, 5, 6, 7])
    np.testing.assert_array_equal(t[:, 1:3].asnumpy()[0], [1, 2])
    np.testing.assert_array_equal(t[Tensor(np.array([0, 2]))].asnumpy()[:, 0], [0, 8])
    t[0, 0] = 100
    assert t.asnumpy()[0, 0] == 100
    with pytest.raises(TypeError):
        t[5, 7]


def test_print_matches_mindspore(capsys):
    print(Tensor(np.array([[2.0, 2.0], [4.0, 4.0]], np.float32)))
    print(Tensor(np.array([2.0, 8.0, 18.0], np.float32)))
    out = capsys.readouterr().out
    assert out == "[[2. 2.]\n [4. 4.]]\n[ 2.  8. 18.]\n"


def test_repr_matches_mindspore():
    assert repr(Tensor(6.0)) == "Tensor(shape=[], dtype=Float32, value= 6)"
    assert repr(Tensor(np.array(12.5, np.float32))) == "Tensor(shape=[], dtype=Float32, value= 12.5)"
    assert repr(Tensor(np.array([1.0, 2.0], np.float32))) == \
        "Tensor(shape=[2], dtype=Float32, value= [ 1.00000000e+00,  2.00000000e+00])"
    assert repr(Tensor(np.array([[1, 2]], np.int32))) == "Tensor(shape=[1, 2], dtype=Int32, value=\n[[1, 2]])"
    assert repr(Tensor(True)) == "Tensor(shape=[], dtype=Bool, value= True)"


def test_methods():
    t = Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    assert t.reshape(3, 2).shape == (3, 2)
    assert t.reshape((6,)).shape == (6,)
    assert t.transpose().shape == (3, 2) and t.T.shape == (3, 2)
    assert float(t.sum()) == 15.0
    np.testing.assert_array_equal(t.sum(axis=1).asnumpy(), [3, 12])
    assert t.astype(mstype.int32).dtype == mstype.int32
    assert t.mean().asnumpy() == pytest.approx(2.5)
    assert len(t) == 2 and t.item(1) == 1.0


def test_dtype_objects():
    assert mstype.dtype_to_nptype(mstype.float16) is np.float16
    assert mstype.pytype_to_dtype(bool) == mstype.bool_
    assert ms.float32 is mstype.float32 and ms.common.dtype.float32 is mstype.float32
    for t in (mstype.int8, mstype.int16, mstype.int32, mstype.int64, mstype.uint8, mstype.uint16, mstype.uint32,
              mstype.uint64, mstype.float16, mstype.float32, mstype.float64, mstype.bool_):
        assert mstype.to_type(mstype.np_name(t)) == t
