"""The ``load3d`` (img2col) row at the ISA level: window wrap at the right padding, its field checks, its bounds
and its MTE1 cost (TIK-level behaviour: tests/tik/test_tik_cube_load3d.py)."""
import numpy as np
import pytest

from npusim.errors import InvalidOperandError, OutOfBoundsError
from npusim.sim import Device, KernelBuilder


def _kernel(h, w, c1=1, **fields):
    """One fractal of UB out (the field checks fire before any access)."""
    kb = KernelBuilder("load3d_t")
    x = kb.tensor("float16", (c1 * h * w * 16,), "GM", "x")
    y = kb.tensor("float16", (256,), "GM", "y")
    l1 = kb.tensor("float16", (c1 * h * w * 16,), "L1", "l1")
    ub = kb.tensor("float16", (256,), "UB", "ub")
    kb.data_move(l1, x, 0, 1, c1 * h * w, 0, 0)
    kb.load3d(ub, l1, l1_h=h, l1_w=w, **fields)
    kb.data_move(y, ub, 0, 1, 16, 0, 0)
    return kb.build()


def _run(kernel, x):
    dev = Device("Ascend910")
    ptrs = [dev.to_device(x), dev.malloc(256 * 2)]
    record = dev.run(kernel, ptrs)
    return dev.from_device(ptrs[1], (1, 16, 16), np.float16), record


def test_windows_wrap_at_the_right_padding():
    """A 3-wide map, 2-wide filter, stride 1, pad right 1: 3 windows a row (corner columns 0..2), 16 of them cover rows
    0..5; pixel (h, w) holds value h * 3 + w in every channel."""
    x = np.repeat(np.arange(3 * 6, dtype=np.float16), 16)
    out, record = _run(_kernel(6, 3, filter_w=2, filter_h=1, pad_right=1, pad_value=-1.0, repeat_time=1), x)
    corners = [(q // 3, q % 3) for q in range(16)]
    expected = [h * 3 + w if w < 3 and h < 6 else -1 for h, w in corners]
    np.testing.assert_array_equal(out[0, :, 0], np.array(expected, np.float16))
    assert record.cost.busy_cycles("MTE1") > 0


@pytest.mark.parametrize("field, value, text", [
    ("repeat_mode", 2, r"repeat_mode should be in the range of \[0, 1\]"),
    ("stride_w", 0, "stride_w should be in the range of"),
    ("repeat_time", 256, r"repeat_time should be in the range of \[0, 255\]"),
])
def test_fields_are_checked(field, value, text):
    fields = {"repeat_time": 1, field: value}
    with pytest.raises(InvalidOperandError, match=text):
        _run(_kernel(4, 4, **fields), np.zeros(256, np.float16))


def test_reads_past_the_feature_map_buffer_are_reported():
    # c1_index 1 of a one-block map: every pixel it reads lies past the L1 tensor
    with pytest.raises(OutOfBoundsError, match="src tensor l1 overflow"):
        _run(_kernel(4, 4, c1_index=1, repeat_time=1), np.zeros(256, np.float16))
