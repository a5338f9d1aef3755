"""Golden (expected-output) functions of the example cases, called as msopst calls calc_expect_func_file:
each named input as {"value", "dtype", "shape", "format"}, each named output as {"dtype", "shape", "format"},
each attribute by name; return one array per output."""
import numpy as np


def calc_scaled_add(x1, x2, y, alpha):
    """ScaledAdd: x1 * alpha + x2, computed in the inputs' dtype as the AI core does (one rounding per step)."""
    dtype = x1["value"].dtype
    scaled = (x1["value"] * np.array(alpha, dtype=dtype)).astype(dtype)
    return [(scaled + x2["value"]).astype(y["dtype"])]


def calc_scale_shift(x, y, scale, shift):
    """ScaleShift (AICPU): x * scale + shift[i % len(shift)] along the flattened tensor, in float32."""
    data = x["value"].astype(np.float32).reshape(-1)
    shifts = np.resize(np.asarray(shift, dtype=np.float32), data.size)
    return [(data * np.float32(scale) + shifts).reshape(x["shape"]).astype(y["dtype"])]


def calc_scaled_add_wrong(x1, x2, y, alpha):
    """A WRONG golden for ScaledAdd (it forgets alpha): its cases fail with the error metrics shown."""
    return [(x1["value"] + x2["value"]).astype(y["dtype"])]


def calc_add_tik(x, y, z):
    """AddTik (TIK): x + y in float16."""
    return [(x["value"] + y["value"]).astype(z["dtype"])]
