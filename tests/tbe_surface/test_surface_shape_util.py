"""shape_util: broadcasting and reduce-axis refinement agree with numpy."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from npusim.errors import TbeArgumentError


def shape_util():
    from tbe.common.utils import shape_util as module
    return module


def test_broadcast_shapes_pads_and_broadcasts():
    su = shape_util()
    assert su.broadcast_shapes([3, 1, 5], (4, 5)) == ([3, 1, 5], [1, 4, 5], [3, 4, 5])
    assert su.broadcast_shapes([1], [2, 3]) == ([1, 1], [2, 3], [2, 3])
    with pytest.raises(TbeArgumentError, match=r"In op\[add\], the inputs\[x\]\[y\] could not be broadcast together "
                                               r"with shapes\[\[2, 3\]\]\[\[1, 4\]\]"):
        su.broadcast_shapes([2, 3], [4], op_name="add", param_name_input1="x", param_name_input2="y")
    with pytest.raises(TbeArgumentError, match="input shapes not match"):
        su.produce_shapes([2, 3], [4])
    assert su.produce_shapes([2, 1], [3]) == ([2, 1], [1, 3], [2, 3])
    assert su.unify_broadcast_shapes([[2, 1, 4], [3, 1], [4]]) == ([2, 1, 4], [1, 3, 1], [1, 1, 4], [2, 3, 4])


def test_broadcast_shapes_accepts_tvm_shapes():
    from tbe import tvm
    su = shape_util()
    x = tvm.placeholder((4, 1), name="x")
    y = tvm.placeholder((6,), name="y")
    assert su.broadcast_shapes(x.shape, y.shape) == ([4, 1], [1, 6], [4, 6])
    assert su.shape_to_list(x.shape) == [4, 1] and all(type(d) is int for d in su.shape_to_list(x.shape))
    assert su.shape_to_list([np.int64(3), 2]) == [3, 2]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from([1, 2, 3]), st.sampled_from(["same", "left1", "right1"])), min_size=1,
                max_size=6))
def test_refine_shapes_for_broadcast_broadcasts_like_the_inputs(axes):
    su = shape_util()
    first = [1 if kind == "left1" else dim for dim, kind in axes]
    second = [1 if kind == "right1" else dim for dim, kind in axes]
    fused_first, fused_second = su.refine_shapes_for_broadcast(first, second)
    assert len(fused_first) == len(fused_second) <= len(first)
    a = np.arange(int(np.prod(first))).reshape(first)
    b = np.arange(int(np.prod(second))).reshape(second) * 1000
    expected = (a + b).ravel()
    got = (a.reshape(fused_first) + b.reshape(fused_second)).ravel()
    np.testing.assert_array_equal(got, expected)


def test_refine_shapes_for_broadcast_fuses_runs():
    su = shape_util()
    assert su.refine_shapes_for_broadcast([2, 3, 4, 5], [2, 1, 1, 5]) == ([2, 12, 5], [2, 1, 5])
    assert su.refine_shapes_for_broadcast([1, 1], [1, 1]) == ([1], [1])
    from te.platform.fusion_manager import fusion_manager
    fusion_manager.set_build_cfg("disable")
    try:
        assert su.refine_shapes_for_broadcast([2, 3], [2, 1]) == ([2, 3], [2, 1])
    finally:
        fusion_manager.set_build_cfg("enable")


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from([1, 2, 3]), min_size=1, max_size=5).flatmap(
    lambda shape: st.tuples(st.just(shape), st.sets(st.integers(0, len(shape) - 1), min_size=1))))
def test_refine_shape_axes_reduces_like_numpy(case):
    su = shape_util()
    shape, axes = case
    refined_shape, refined_axes = su.refine_shape_axes(shape, sorted(axes))
    data = np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape) % 7
    expected = data.sum(axis=tuple(axes)).ravel()
    refined = data.reshape(refined_shape)
    got = refined.sum(axis=tuple(refined_axes)).ravel() if refined_axes else refined.ravel()  # only 1-axes reduced
    np.testing.assert_array_equal(got, expected)


def test_refine_and_simplify_examples():
    su = shape_util()
    assert su.refine_shape_axes((2, 3, 4, 5, 6), (1, -3)) == ([2, 12, 30], [1])
    assert su.refine_shape_axes((2, 1, 3), [1]) == ([6], [])
    assert su.simplify_axis_shape([2, 3, 4, 5], [1, 2]) == ([2, 12, 5], [1])
    assert su.simplify_axis_shape([2, 1, 4], [0, 1]) == ([2, 4], [0])
    assert su.shape_refine([2, 1, 3, 4], [2]) == ([2, 3, 4], [1])
    assert su.shape_refine([2, 1, 3]) == [2, 3]
    assert su.shape_refine([2, 1, 3], [1]) == ([2, 1, 3], [1])  # a reduced 1-axis stops the refinement
    assert su.squeeze_shape([1, 1]) == [1]
    assert su.scalar2tensor_one([]) == [1] and su.scalar2tensor_one((2,)) == (2,)
    assert su.get_shape_size([2, 3, 4]) == 24
    with pytest.raises(TbeArgumentError, match=r"Axis must between \[-2, 2\)"):
        su.refine_shape_axes([2, 3], [2])


def test_axis_check():
    su = shape_util()
    assert su.axis_check(4, -1) == 3
    assert su.axis_check(4, [3, -1, 0]) == [0, 3]
    assert su.axis_check(3, range(3)) == [0, 1, 2]
    with pytest.raises(TbeArgumentError, match="axis value can be from -4 to 3, but got 4"):
        su.axis_check(4, [4])
    with pytest.raises(TbeArgumentError, match="type of axis value should be int"):
        su.axis_check(4, 1.0)
    from topi.cce import util
    assert util.refine_axis([-1, 0], [1, 5]) == [1]
    with pytest.raises(TbeArgumentError, match="wrong axis 2"):
        util.refine_axis(2, [1, 5])
