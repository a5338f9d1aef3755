"""Issue 11 item 11: akg ir_builder kernels run (they raised UnsupportedError), on the CPU and on the simulated
Ascend device.  The first case is MindSpore's own test_custom_akg.py irbuilder case; the others are written the way
AKG's ir_builder kernels are (composite/topi.py): if/else scopes, buffer pointers, attributes, several outputs."""
import numpy as np
import pytest

from mindspore import Tensor, context
from mindspore.common import dtype as mstype
from mindspore.nn import Cell
from mindspore.ops import Custom, CustomRegOp, DataType, GradOperation, custom_info_register

from npusim.errors import GradientError, KernelBuildError, UnsupportedError
from npusim.hybrid.compile import TARGET, KernelCache
from npusim.hybrid.disk_cache import DiskCache
from npusim.hybrid.source import load_source
from npusim.hybrid.akg_lower import lower_ir_builder

v_add_ascend_info = CustomRegOp() \
    .fusion_type("OPAQUE") \
    .input(0, "x", "dynamic") \
    .output(0, "y") \
    .dtype_format(DataType.F16_Default, DataType.F16_Default) \
    .target("Ascend") \
    .get_op_info()


@custom_info_register(v_add_ascend_info)
def v_add(inputs, attrs):
    def vadd_func(dst, data_1, data_2):
        ib = tvm.ir_builder.create()
        with ib.for_range_n(data_1.shape, "i") as i:
            ib.store(dst, i, ib.load(data_1, i) + ib.load(data_2, i))
        return ib.get()

    data_1, data_2 = inputs[0], inputs[1]
    return tvm.extern(data_1.shape, [data_1, data_2],
                      lambda ins, outs: vadd_func(outs[0], ins[0], ins[1]),
                      name="v_add", dtype=data_1.dtype)


class TestIRbuilder(Cell):
    __test__ = False   # MindSpore's class name; not a pytest test class

    def __init__(self, shape):
        super(TestIRbuilder, self).__init__()
        self.program = Custom(v_add, out_shape=shape, out_dtype=mstype.float16, func_type="akg")

    def construct(self, x, y):
        return self.program([x, y])


@pytest.mark.parametrize("device_target", ["CPU", "Ascend"])
def test_mindspore_irbuilder_case(device_target):
    context.set_context(device_target=device_target)
    shape = (4, 5)
    input_x = np.random.normal(0, 1, shape).astype(np.float16)
    input_y = np.random.normal(0, 1, shape).astype(np.float16)
    output = TestIRbuilder(shape)(Tensor(input_x), Tensor(input_y))
    assert np.allclose(input_x + input_y, output.asnumpy(), 0.001, 0.001)


clip_scale_info = CustomRegOp() \
    .input(0, "x") \
    .output(0, "y") \
    .attr("scale", "required", "float") \
    .dtype_format(DataType.F32_Default, DataType.F32_Default) \
    .target("CPU") \
    .get_op_info()


@custom_info_register(clip_scale_info)
def clip_scale(inputs, attrs):
    """y = x * scale where x > 0, else 0; written through buffer pointers, a scratch buffer and if/else."""
    data = inputs[0]
    scale = attrs["scale"]

    def kernel_ir(dst, src):
        ib = tvm.ir_builder.create()
        size = 1
        for extent in src.shape:
            size *= extent
        x = ib.buffer_ptr(src)
        y = ib.buffer_ptr(dst)
        scratch = ib.allocate("float32", (1,), name="scratch")
        with ib.for_range(0, size, name="k") as k:
            scratch[0] = x[k] * tvm.const(scale, "float32")
            with ib.if_scope(x[k] > tvm.const(0.0, "float32")):
                y[k] = scratch[0]
            with ib.else_scope():
                y[k] = tvm.const(0.0, "float32")
        return ib.get()

    return tvm.extern(data.shape, [data], lambda ins, outs: kernel_ir(outs[0], ins[0]), name="clip_scale",
                      dtype=data.dtype)


def test_buffer_pointers_scopes_and_an_attribute():
    x = np.array([[-1.0, 2.0, 0.5], [3.0, -0.25, 0.0]], np.float32)
    op = Custom(clip_scale, out_shape=lambda s, _: s, out_dtype=lambda t, _: t, func_type="akg")
    np.testing.assert_allclose(op(Tensor(x), 3.0).asnumpy(), np.where(x > 0, x * 3.0, 0.0))
    np.testing.assert_allclose(op(Tensor(x), 0.5).asnumpy(), np.where(x > 0, x * 0.5, 0.0))


def split_sign(inputs, attrs):
    """Two outputs, declared with decl_buffer and given as out_buffers (AKG's own GatherNd style)."""
    data = inputs[0]
    pos = tvm.decl_buffer(data.shape, data.dtype, "positive")
    neg = tvm.decl_buffer(data.shape, data.dtype, "negative")

    def gen_ir(src, out_pos, out_neg):
        ib = tvm.ir_builder.create()
        with ib.for_range_n(src.shape, "i") as i:
            value = ib.load(src, i)
            ib.store(out_pos, i, tvm.max(value, tvm.const(0, src.dtype)))
            ib.store(out_neg, i, tvm.min(value, tvm.const(0, src.dtype)))
        return ib.get()

    return tvm.extern([data.shape, data.shape], [data], lambda ins, outs: gen_ir(ins[0], outs[0], outs[1]),
                      dtype=[data.dtype, data.dtype], out_buffers=[pos, neg], name="split_sign")


def test_several_outputs_and_inferred_shapes():
    x = np.arange(-3, 3, dtype=np.int32).reshape(2, 3)
    op = Custom(split_sign, func_type="akg")   # out_shape/out_dtype None: inferred from the extern
    positive, negative = op(Tensor(x))   # AKG hands the function the list of tensor inputs
    np.testing.assert_array_equal(positive.asnumpy(), np.maximum(x, 0))
    np.testing.assert_array_equal(negative.asnumpy(), np.minimum(x, 0))


def uses_compute(inputs, attrs):
    data = inputs[0]
    ib = tvm.ir_builder.create()
    return tvm.compute(data.shape, lambda *i: data(*i))


def test_an_api_npusim_lacks_is_named():
    op = Custom(uses_compute, out_shape=lambda s: s, out_dtype=lambda t: t, func_type="akg")
    with pytest.raises(UnsupportedError, match=r"cannot use tvm\.compute"):
        op(Tensor(np.ones(3, np.float32)))


def test_like_mindspore_ir_builder_kernels_have_no_automatic_backward():
    op = Custom(clip_scale, out_shape=lambda s, _: s, out_dtype=lambda t, _: t, func_type="akg")
    with pytest.raises(GradientError, match="no bprop"):
        GradOperation()(op)(Tensor(np.ones(3, np.float32)), 2.0)


def test_ir_builder_kernels_are_kept_on_disk(tmp_path):
    source = load_source(v_add)

    def lower(shapes, dtypes, pairs):
        return lower_ir_builder(v_add, "v_add", shapes, dtypes, dict(pairs))

    shapes, dtypes = [(3,), (3,)], ["float32", "float32"]
    first = KernelCache(disk=DiskCache(TARGET, tmp_path))
    first.get_compiled(source, shapes, dtypes, (), lower)
    second = KernelCache(disk=DiskCache(TARGET, tmp_path))
    kernel = second.get_compiled(source, shapes, dtypes, (), lower)
    assert (first.disk.compiles, second.disk.compiles, second.disk.loads) == (1, 0, 1)
    np.testing.assert_array_equal(kernel.run([np.ones(3, np.float32), np.ones(3, np.float32)])[0], [2, 2, 2])


def returns_a_statement(inputs, attrs):
    ib = tvm.ir_builder.create()
    return ib.get()


def test_a_function_that_returns_no_extern_is_a_build_error():
    op = Custom(returns_a_statement, out_shape=lambda s: s, out_dtype=lambda t: t, func_type="akg")
    with pytest.raises(KernelBuildError, match="returns_a_statement.*tvm.extern"):
        op(Tensor(np.ones(3, np.float32)))
