"""npusim demo: MindSpore Custom ops of three kinds computing the same add, run unmodified on a plain machine.

    npusim run examples/custom_add.py

The akg kernel is the seed document's hybrid-DSL function, compiled by TVM; the pyfunc op runs numpy; the aot op
is a C++ kernel compiled on first use.  All three print [[2. 2.] [4. 4.]].
"""
import os

import numpy as np
from mindspore import context, Tensor
import mindspore.ops as ops

context.set_context(device_target="CPU")
HERE = os.path.dirname(os.path.abspath(__file__))


def add(a, b):
    c = output_tensor(a.shape, a.dtype)
    for i0 in range(a.shape[0]):
        for i1 in range(a.shape[1]):
            c[i0, i1] = a[i0, i1] + b[i0, i1]
    return c


if __name__ == "__main__":
    x0 = np.array([[0.0, 0.0], [1.0, 1.0]]).astype(np.float32)
    x1 = np.array([[2.0, 2.0], [3.0, 3.0]]).astype(np.float32)
    for func, func_type in ((add, "akg"), (lambda a, b: a + b, "pyfunc"),
                            (os.path.join(HERE, "aot_add.cc") + ":CustomAdd", "aot")):
        op = ops.Custom(func, out_shape=lambda x, _: x, out_dtype=lambda x, _: x, func_type=func_type)
        print(f"{func_type:>6}:", op(Tensor(x0), Tensor(x1)))
