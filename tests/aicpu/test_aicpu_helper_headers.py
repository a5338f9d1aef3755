"""MindSpore / canndev kernel helper headers served by npusim: "utils/bcast.h" (Bcast, BCalcInfo, BcastShapeType),
"utils/eigen_tensor.h" (EigenTensor, TTypes), and NodeDef + CpuKernelContext::Init(NodeDef *) with
"node_def_builder.h".  Kernels in the real style compile unmodified into one library and run through
ops.Custom(func_type="aicpu"); a canndev-style harness runs kernels in-process through Init + the registry."""
import subprocess

import numpy as np
import pytest

import aicpu_loader
from aicpu_loader import build_kernel_library
from aicpu_test_support import KERNEL_DIR
from npusim.errors import AicpuParamInvalidError

LIBRARY = "npusim_helper_header_kernels"
SOURCES = ("bcast_kernels.cc", "eigen_tensor_kernels.cc", "node_def_kernels.cc")

#: (x shape, y shape): same shape, scalar / one-element x or y, general broadcasts incl. rank padding
SHAPE_PAIRS = [
    ((2, 3), (2, 3)),
    ((), (4, 5)),
    ((3, 4), ()),
    ((3, 4), (1,)),
    ((2, 1, 4), (3, 1)),
    ((4,), (3, 1)),
    ((5, 1, 3, 1), (1, 4, 3, 2)),
    ((), ()),
    ((64, 1, 40), (1, 50, 40)),  # 128000 elements: the ParallelFor path of BcastMul
]


@pytest.fixture(scope="module")
def helper_library(tmp_path_factory):
    assert aicpu_loader.eigen_include_dirs(), "Eigen 3.4 headers missing: the declared dependency cmeel-eigen"
    out = tmp_path_factory.mktemp("helper_headers") / f"lib{LIBRARY}.so"
    return build_kernel_library([KERNEL_DIR / name for name in SOURCES], out).path


@pytest.fixture
def ms(monkeypatch, helper_library):
    monkeypatch.setenv("NPUSIM_AICPU_LIB_PATH", str(helper_library.parent))
    import npusim.compat  # noqa: F401  (makes `mindspore` importable)
    import mindspore
    return mindspore


def custom(ms, op_name, n_inputs, out_shape, out_dtype, attrs=(), n_outputs=1):
    """ops.Custom(func_type="aicpu") for `op_name` of the helper library; attrs: (name, type) pairs."""
    from mindspore import ops
    from mindspore.ops import CustomRegOp, DataType, custom_info_register

    reg = CustomRegOp(op_name)
    for i in range(n_inputs):
        reg = reg.input(i, f"x{i}")
    for i in range(n_outputs):
        reg = reg.output(i, f"y{i}")
    for name, kind in attrs:
        reg = reg.attr(name, "required", kind)
    reg = reg.attr("cust_aicpu", "required", "str", value=LIBRARY)
    info = reg.dtype_format(*[DataType.None_None] * (n_inputs + n_outputs)).target("Ascend").get_op_info()

    @custom_info_register(info)
    def kernel():
        """An AICPU kernel of the helper library."""

    return ops.Custom(kernel, out_shape=out_shape, out_dtype=out_dtype, func_type="aicpu")


def _inputs(x_shape, y_shape, dtype, seed):
    rng = np.random.default_rng(seed)
    x = rng.integers(-9, 10, size=x_shape).astype(dtype)
    y = rng.integers(-9, 10, size=y_shape).astype(dtype)
    return x, y


def _binary(ms, op_name):
    return custom(ms, op_name, 2, lambda x, y: np.broadcast_shapes(tuple(x), tuple(y)), lambda x, y: x)


# ---- utils/bcast.h ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("x_shape, y_shape", SHAPE_PAIRS)
def test_bcast_mul_and_add_match_numpy(ms, x_shape, y_shape):
    x, y = _inputs(x_shape, y_shape, np.float32, seed=len(x_shape) * 7 + len(y_shape))
    mul = _binary(ms, "BcastMul")(ms.Tensor(x), ms.Tensor(y)).asnumpy()
    add = _binary(ms, "BcastAdd")(ms.Tensor(x), ms.Tensor(y)).asnumpy()
    assert mul.shape == add.shape == np.broadcast_shapes(x_shape, y_shape)
    np.testing.assert_array_equal(mul, x * y)
    np.testing.assert_array_equal(add, x + y)


@pytest.mark.parametrize("dtype", [np.int32, np.float64])
def test_bcast_mul_other_dtypes(ms, dtype):
    x, y = _inputs((3, 1, 5), (4, 1), dtype, seed=3)
    out = _binary(ms, "BcastMul")(ms.Tensor(x), ms.Tensor(y)).asnumpy()
    assert out.dtype == dtype
    np.testing.assert_array_equal(out, x * y)


def test_invalid_broadcast_is_the_kernels_param_invalid_with_its_log(ms):
    x, y = np.ones((2, 3), np.float32), np.ones((4, 3), np.float32)
    mul = custom(ms, "BcastMul", 2, lambda x, y: x, lambda x, y: x)
    with pytest.raises(AicpuParamInvalidError) as info:
        mul(ms.Tensor(x), ms.Tensor(y))
    lines = info.value.log_lines
    assert info.value.op_type == "BcastMul"
    assert any("Broadcast failed, x_shape[0]=2 and y_shape[0]=4" in line for line in lines), lines
    assert any(line.startswith("[ERROR] bcast_kernels.cc:") and "[BcastMul] broadcast failed." in line
               for line in lines), lines
    add = custom(ms, "BcastAdd", 2, lambda x, y: x, lambda x, y: x)
    with pytest.raises(AicpuParamInvalidError) as info:
        add(ms.Tensor(x), ms.Tensor(y))
    assert any("[BcastAdd] Generate broadcast info failed." in line for line in info.value.log_lines)
    assert any("dim_x[0]=2, dim_y[0]=4, dim_out[0]=2" in line for line in info.value.log_lines)


def _probe(ms, x_shape, y_shape):
    out_shape = np.broadcast_shapes(x_shape, y_shape)
    width, count = max(len(out_shape), 1), int(np.prod(out_shape, dtype=np.int64))
    probe = custom(ms, "BcastProbe", 3, lambda *shapes: ((5, width), (5, width), (4, count)),
                   lambda *types: (ms.int64, ms.int64, ms.int64), n_outputs=3)
    tensors = [ms.Tensor(np.zeros(s, np.float32)) for s in (x_shape, y_shape, out_shape)]
    return [t.asnumpy() for t in probe(*tensors)]


@pytest.mark.parametrize("x_shape, y_shape, padded, collapsed", [
    # rows: reshape_0, reshape_1, bcast_0, bcast_1, shape_out | x_reshape, y_reshape, result_shape, x_bcast, y_bcast
    ((2, 1, 3, 1), (2, 1, 3, 4),
     [[2, 1, 3, 1], [2, 1, 3, 4], [1, 1, 1, 4], [1, 1, 1, 1], [2, 1, 3, 4]],
     [[6, 1, 0, 0], [6, 4, 0, 0], [6, 4, 0, 0], [1, 4, 0, 0], [1, 1, 0, 0]]),
    ((3,), (2, 1),
     [[1, 3], [2, 1], [2, 1], [1, 3], [2, 3]],
     [[1, 3], [2, 1], [2, 3], [2, 1], [1, 3]]),
    ((4, 5), (4, 5),
     [[4, 5], [4, 5], [1, 1], [1, 1], [4, 5]],
     [[20, 0], [20, 0], [20, 0], [1, 0], [1, 0]]),
    ((2, 3, 1), (),
     [[2, 3, 1], [1, 1, 1], [1, 1, 1], [2, 3, 1], [2, 3, 1]],
     [[6, 0, 0], [1, 0, 0], [6, 0, 0], [1, 0, 0], [6, 0, 0]]),
    ((), (),
     [[0], [0], [0], [0], [0]],
     [[1], [1], [1], [1], [1]]),
])
def test_bcast_info_vectors_and_index_maps(ms, x_shape, y_shape, padded, collapsed):
    got_padded, got_collapsed, indexes = _probe(ms, x_shape, y_shape)
    np.testing.assert_array_equal(got_padded, padded)
    np.testing.assert_array_equal(got_collapsed, collapsed)
    out_shape = np.broadcast_shapes(x_shape, y_shape)
    x_map = np.broadcast_to(np.arange(int(np.prod(x_shape))).reshape(x_shape), out_shape).ravel()
    y_map = np.broadcast_to(np.arange(int(np.prod(y_shape))).reshape(y_shape), out_shape).ravel()
    np.testing.assert_array_equal(indexes, [x_map, y_map, x_map, y_map])


# ---- utils/eigen_tensor.h -----------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(7,), (3, 4, 5), ()])
def test_eigen_flat_expression(ms, dtype, shape):
    op = custom(ms, "EigenAxpySquare", 1, lambda x, *a: x, lambda x, *a: x, attrs=[("alpha", "float")])
    x = np.linspace(-2, 3, max(int(np.prod(shape)), 1)).astype(dtype).reshape(shape)
    out = op(ms.Tensor(x), 1.5).asnumpy()
    assert out.shape == shape and out.dtype == dtype
    np.testing.assert_allclose(out, x * dtype(1.5) + x * x, rtol=1e-6)


def test_eigen_matrix_reduction_and_broadcast(ms):
    op = custom(ms, "EigenCenterRows", 1, lambda x: x, lambda x: x)
    x = np.arange(35, dtype=np.float32).reshape(5, 7) ** 1.5
    out = op(ms.Tensor(x)).asnumpy()
    np.testing.assert_allclose(out, x - x.mean(axis=1, keepdims=True), rtol=1e-5, atol=1e-4)
    with pytest.raises(AicpuParamInvalidError) as info:
        op(ms.Tensor(np.ones((2, 3, 4), np.float32)))
    assert any("[EigenCenterRows] input must be a matrix." in line for line in info.value.log_lines)


@pytest.mark.parametrize("x_shape, y_shape", SHAPE_PAIRS[:-1])
def test_eigen_broadcast_add_from_bcast_vectors(ms, x_shape, y_shape):
    x, y = _inputs(x_shape, y_shape, np.float32, seed=11)
    out = _binary(ms, "EigenBcastAdd")(ms.Tensor(x), ms.Tensor(y)).asnumpy()
    np.testing.assert_array_equal(out, x + y)


# ---- NodeDef and CpuKernelContext::Init ---------------------------------------------------------------------
def test_kernel_runs_a_sub_kernel_through_a_node_def(ms):
    op = _binary(ms, "AddViaNodeDef")
    for x_shape, y_shape in [((2, 1, 4), (3, 1)), ((), (4, 5)), ((6,), (6,))]:
        x, y = _inputs(x_shape, y_shape, np.float32, seed=5)
        np.testing.assert_array_equal(op(ms.Tensor(x), ms.Tensor(y)).asnumpy(), x + y)
    bad = custom(ms, "AddViaNodeDef", 2, lambda x, y: x, lambda x, y: x)
    with pytest.raises(AicpuParamInvalidError) as info:
        bad(ms.Tensor(np.ones((2, 3), np.float32)), ms.Tensor(np.ones((4, 3), np.float32)))
    lines = info.value.log_lines
    assert any("[BcastAdd] Generate broadcast info failed." in line for line in lines), lines
    assert any("[AddViaNodeDef] BcastAdd on the sub-context returned 1." in line for line in lines), lines


def test_node_def_api(ms):
    probe = custom(ms, "NodeDefProbe", 1, lambda x: (16,), lambda x: ms.int64)
    got = probe(ms.Tensor(np.zeros(1, np.float32))).asnumpy()
    # inputs, outputs, op type, AddAttrs new / repeated / null, copy kept 41, MutableInputs(5) null,
    # SerializeToString false, Init(nullptr) PARAM_INVALID, Init OK, sub inputs / outputs / attr k,
    # shared tensor, its 2x3 shape
    assert got.tolist() == [2, 1, 1, 1, 0, 0, 41, 1, 0, 1, 0, 2, 1, 41, 1, 6]


def test_canndev_style_harness_runs_kernels_in_process(tmp_path):
    exe = tmp_path / "node_def_harness"
    cmd = ["g++", *aicpu_loader.get_compile_flags(), "-O0", str(KERNEL_DIR / "node_def_harness.cc"),
           str(KERNEL_DIR / "bcast_kernels.cc"), "-o", str(exe), "-Wl,--whole-archive",
           str(aicpu_loader.runtime_archive()), "-Wl,--no-whole-archive", "-pthread"]
    subprocess.run(cmd, check=True, capture_output=True, text=True)
    run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.splitlines() == ["ok BcastAdd status=0 init=0", "ok BcastMul status=0 init=0",
                                       "ok BcastMul status=1 init=0", "0 failure(s)"]
    assert "[BcastMul] broadcast failed." in run.stderr  # outside a worker call, kernel logs go to stderr
