"""A user script with one hybrid op (MindSpore test_ms_kernel style); prints the result and what the process's
hybrid kernel cache did: "compiles=N loads=M" (run by tests/hybrid/test_hybrid_disk_cache.py)."""
import numpy as np

import npusim.compat  # noqa: F401
from mindspore import Tensor, context, ops
from mindspore.ops import kernel

from npusim.hybrid.compile import RESOURCE, KernelCache
from npusim.sim.runtime import current_runtime


@kernel
def outer_product(a, b):
    c = output_tensor((a.shape[0], b.shape[1]), 'float32')
    for i0 in range(a.shape[0]):
        for i1 in range(b.shape[1]):
            c[i0, i1] = 0.0
            for i2 in range(a.shape[1]):
                c[i0, i1] = c[i0, i1] + (a[i0, i2] * b[i2, i1])
    return c


context.set_context(device_target="CPU")
op = ops.Custom(outer_product, out_shape=lambda x, y: x, out_dtype=lambda x, y: x, func_type="hybrid")
x = np.arange(16, dtype=np.float32).reshape(4, 4)
y = np.eye(4, dtype=np.float32) * 2
np.testing.assert_allclose(op(Tensor(x), Tensor(y)).asnumpy(), x @ y)
disk = current_runtime().resource(RESOURCE, KernelCache).disk
print(f"compiles={disk.compiles} loads={disk.loads}")
