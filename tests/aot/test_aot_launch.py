"""The aot call itself: the seed kernel, dtypes/shapes as kernels see them, outputs, zero-copy inputs."""
import numpy as np
import pytest

from npusim.custom.backends.base import CallAttrs

from aot_test_support import kernel_source, make_backend

NO_ATTRS = CallAttrs()
SEED_X0 = np.array([[0.0, 0.0], [1.0, 1.0]], dtype=np.float32)
SEED_X1 = np.array([[2.0, 2.0], [3.0, 3.0]], dtype=np.float32)
SEED_EXPECTED = np.array([[2.0, 2.0], [4.0, 4.0]], dtype=np.float32)


def test_seed_add_prebuilt_so(build_so, monkeypatch):
    library = build_so("seed_add.cc")
    monkeypatch.chdir(library.parent)
    backend = make_backend(f"./{library.name}:CustomAdd")
    (out,) = backend.launch([SEED_X0, SEED_X1], NO_ATTRS, [(2, 2)], ["float32"])
    np.testing.assert_array_equal(out, SEED_EXPECTED)
    assert out.dtype == np.float32 and out.shape == (2, 2)


def test_seed_add_auto_compiled_from_cc(in_kernel_dir, aot_cache_dir):
    backend = make_backend("seed_add.cc:CustomAdd")
    assert backend.library_path.startswith(str(aot_cache_dir))
    (out,) = backend.launch([SEED_X0, SEED_X1], NO_ATTRS, [(2, 2)], ["float32"])
    np.testing.assert_array_equal(out, SEED_EXPECTED)


def test_seed_add_repeated_calls_and_new_shapes(in_kernel_dir):
    backend = make_backend("seed_add.cc:CustomAdd")
    rng = np.random.default_rng(0)
    for shape in [(2, 2), (3, 5), (2, 2), (7,)]:
        x, y = rng.normal(size=shape).astype(np.float32), rng.normal(size=shape).astype(np.float32)
        (out,) = backend.launch([x, y], NO_ATTRS, [shape], ["float32"])
        np.testing.assert_allclose(out, x + y, rtol=1e-6)


def test_seed_add_rejects_float64_with_its_own_code(in_kernel_dir):
    from npusim.errors import AotKernelError
    backend = make_backend("seed_add.cc:CustomAdd")
    x = SEED_X0.astype(np.float64)
    with pytest.raises(AotKernelError) as caught:
        backend.launch([x, x], NO_ATTRS, [(2, 2)], ["float64"])
    assert caught.value.code == 2


def _probe(inputs):
    backend = make_backend(kernel_source("probe.cc") + ":CustomProbe")
    nparam = len(inputs) + 2
    info, names = backend.launch(inputs, NO_ATTRS, [(nparam, 10), (nparam, 16)], ["int64", "uint8"])
    dtype_names = [bytes(row).split(b"\0")[0].decode() for row in names]
    return info, dtype_names


def test_dtype_strings_reach_the_kernel():
    inputs = [np.ones((2, 3), np.float16), np.ones(4, np.int32), np.ones((1, 1, 2), np.bool_),
              np.ones(2, np.uint8), np.ones(2, np.int64), np.ones(2, np.float64)]
    info, dtype_names = _probe(inputs)
    assert dtype_names == ["float16", "int32", "bool", "uint8", "int64", "float64", "int64", "uint8"]
    assert list(info[:3, 0]) == [2, 1, 3]


def test_shapes_are_padded_with_ones():
    info, _ = _probe([np.ones((2, 3), np.float32)])
    assert list(info[0, :10]) == [2, 2, 3, 1, 1, 1, 1, 1, 1, -1]
    assert list(info[1, :4]) == [2, 3, 10, 1]  # the info output itself: (3, 10)


def test_zero_dim_tensor_has_ndims_zero():
    scalar = np.array(2.5, dtype=np.float32)
    info, dtype_names = _probe([scalar])
    assert info[0, 0] == 0
    assert list(info[0, 1:9]) == [1] * 8
    assert dtype_names[0] == "float32"


def test_zero_dim_output():
    backend = make_backend(kernel_source("seed_add.cc") + ":CustomAdd")
    a, b = np.array(1.5, np.float32), np.array(2.0, np.float32)
    (out,) = backend.launch([a, b], NO_ATTRS, [()], ["float32"])
    assert out.shape == () and out == np.float32(3.5)


def test_multiple_outputs_of_several_dtypes():
    backend = make_backend(kernel_source("multi_output.cc") + ":CustomAddMulGreater")
    x = np.array([[1.0, -2.0], [3.0, 0.5]], np.float32)
    y = np.array([[0.5, 1.0], [3.0, -1.0]], np.float32)
    total, product, greater = backend.launch([x, y], NO_ATTRS, [(2, 2)] * 3, ["float32", "float32", "bool"])
    np.testing.assert_array_equal(total, x + y)
    np.testing.assert_array_equal(product, x * y)
    assert greater.dtype == np.bool_
    np.testing.assert_array_equal(greater, x > y)


def test_large_inputs_are_passed_without_copies():
    backend = make_backend(kernel_source("multi_output.cc") + ":CustomNegateInPlace")
    x = np.arange(1 << 24, dtype=np.float32)
    (count,) = backend.launch([x], NO_ATTRS, [(1,)], ["int64"])
    assert count[0] == 1 << 24
    # the kernel wrote through params[0]: it saw the caller's buffer, not a copy
    assert x[1] == -1.0 and x[-1] == -float((1 << 24) - 1)


def test_non_contiguous_inputs_are_passed_as_contiguous_copies():
    backend = make_backend(kernel_source("multi_output.cc") + ":CustomNegateInPlace")
    base = np.arange(12, dtype=np.float32).reshape(3, 4)
    view = base[:, ::2]
    (count,) = backend.launch([view], NO_ATTRS, [(1,)], ["int64"])
    assert count[0] == 6
    np.testing.assert_array_equal(base, np.arange(12, dtype=np.float32).reshape(3, 4))


def test_big_endian_inputs_are_converted():
    backend = make_backend(kernel_source("seed_add.cc") + ":CustomAdd")
    x = SEED_X0.astype(">f4")
    (out,) = backend.launch([x, SEED_X1], NO_ATTRS, [(2, 2)], ["float32"])
    np.testing.assert_array_equal(out, SEED_EXPECTED)


def test_output_shapes_given_as_lists():
    backend = make_backend(kernel_source("seed_add.cc") + ":CustomAdd")
    (out,) = backend.launch([SEED_X0, SEED_X1], NO_ATTRS, [[2, 2]], ["float32"])
    np.testing.assert_array_equal(out, SEED_EXPECTED)


def test_unsupported_dtype_is_a_type_error():
    from npusim.errors import OpTypeError
    backend = make_backend(kernel_source("seed_add.cc") + ":CustomAdd")
    x = np.array(["a", "b"])
    with pytest.raises(OpTypeError, match="dtype"):
        backend.launch([x, x], NO_ATTRS, [(2,)], ["float32"])


def test_tuples_are_accepted_for_the_lists():
    backend = make_backend(kernel_source("seed_add.cc") + ":CustomAdd")
    (out,) = backend.launch((SEED_X0, SEED_X1), NO_ATTRS, ((2, 2),), ("float32",))
    np.testing.assert_array_equal(out, SEED_EXPECTED)


def test_outputs_are_fresh_arrays_each_call():
    backend = make_backend(kernel_source("seed_add.cc") + ":CustomAdd")
    (first,) = backend.launch([SEED_X0, SEED_X1], NO_ATTRS, [(2, 2)], ["float32"])
    (second,) = backend.launch([SEED_X0, SEED_X1], NO_ATTRS, [(2, 2)], ["float32"])
    assert first is not second and not np.shares_memory(first, second)
    np.testing.assert_array_equal(first, second)
