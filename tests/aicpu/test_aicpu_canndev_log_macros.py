"""Kernels written against canndev's utils/log.h (check macros without a `;`, KERNEL_HANDLE_ERROR directly before
`}`) and MindSpore's kernel_log.h (AICPU_LOG* / AICPU_CHK_STATUS_RET carrying their own `;`) compile unmodified and
each macro behaves as its upstream does (issue 11, item 7)."""
import numpy as np
import pytest

from aicpu_loader import build_kernel_library
from aicpu_test_support import KERNEL_DIR
from npusim.errors import (
    AicpuInnerError, AicpuKernelTimeoutStatusError, AicpuParamInvalidError, AicpuStatusError,
)

LIBRARY = "canndev_log_macros"


@pytest.fixture(scope="module")
def macro_library(tmp_path_factory):
    out = tmp_path_factory.mktemp("log_macros") / f"lib{LIBRARY}.so"
    return build_kernel_library([KERNEL_DIR / "canndev_log_macro_kernels.cc"], out).path


@pytest.fixture
def macro_op(make_op, monkeypatch, macro_library):
    monkeypatch.setenv("NPUSIM_AICPU_LIB_PATH", str(macro_library.parent))
    return lambda name, n_in, n_out, attrs=(): make_op(name, n_in, n_out, attrs=attrs, library=LIBRARY)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32"])
def test_axpy_with_handle_error_before_closing_brace(macro_op, dtype):
    op = macro_op("MacroAxpy", 2, 1, [("alpha", "float")])
    x = np.arange(-700, 700, dtype=dtype).reshape(28, 50)
    b = (np.arange(1400, dtype=dtype) % 7).reshape(28, 50)
    (y,) = op([x, b], [x.shape], [dtype], alpha=2.0)
    np.testing.assert_array_equal(y, x * np.asarray(2, dtype) + b)


def test_handle_error_propagates_the_inner_status_and_logs_both_messages(macro_op):
    op = macro_op("MacroAxpy", 2, 1, [("alpha", "float")])
    with pytest.raises(AicpuParamInvalidError) as info:
        op([np.ones(4, np.float32), np.ones(4, np.float64)], [(4,)], ["float32"], alpha=1.0)
    lines = info.value.log_lines
    assert len(lines) == 2
    assert "the data type of x [DT_FLOAT] differs from b [DT_DOUBLE]" in lines[0]
    assert lines[1].startswith("[ERROR]") and "[MacroAxpy] check params failed." in lines[1]
    with pytest.raises(AicpuParamInvalidError) as info:
        op([np.ones(4, np.float32), np.ones(5, np.float32)], [(4,)], ["float32"], alpha=1.0)
    assert "the shape of x [4] differs from b [5]" in info.value.log_lines[0]


TRIP_ATTRS = [("trip", "int"), ("rows", "int"), ("cols", "int")]


def _trip(macro_op, trip, rows=3, cols=5):
    op = macro_op("MacroTrip", 1, 1, TRIP_ATTRS)
    (total,) = op([np.zeros(2, np.float32)], [(1,)], ["int64"], trip=trip, rows=rows, cols=cols)
    return int(total[0])


def test_no_macro_fires_and_assign_multi_gives_the_product(macro_op):
    assert _trip(macro_op, 0, rows=6, cols=7) == 42
    assert _trip(macro_op, 0, rows=0, cols=1 << 62) == 0


@pytest.mark.parametrize("trip, error, expected_lines", [
    (1, AicpuParamInvalidError, ["trip 1: input 1 is missing.", "[MacroTrip] trip 1 failed."]),
    (2, AicpuInnerError, ["trip 2: rows 3 is not negative.", "[MacroTrip] trip 2 failed."]),
    (3, AicpuInnerError, ["trip 3: inner failure (thread", "trip 3: handled the inner failure.",
                          "[MacroTrip] trip 3 failed."]),
    (5, AicpuParamInvalidError, ["[EVENT]", "trip 5: run info.", "[MacroTrip] trip 5 failed."]),
    (6, AicpuKernelTimeoutStatusError, ["[MacroTrip] trip 6 failed."]),
    (7, AicpuStatusError, ["trip 7: no timeout check.", "[MacroTrip] trip 7 failed."]),
])
def test_each_check_macro_returns_its_status_with_its_log(macro_op, trip, error, expected_lines):
    rows = cols = 3 if trip == 7 else None
    with pytest.raises(error) as info:
        _trip(macro_op, trip, **({"rows": rows, "cols": cols} if rows else {}))
    text = "\n".join(info.value.log_lines)
    positions = [text.find(fragment) for fragment in expected_lines]
    assert all(p >= 0 for p in positions) and positions == sorted(positions), text
    if trip == 7:
        assert info.value.status == 5 and info.value.status_name == "KERNEL_STATUS_SHARDER_ERROR"


def test_assign_multi_overflow_logs_and_returns_the_error_code(macro_op):
    with pytest.raises(AicpuParamInvalidError) as info:
        _trip(macro_op, 4, rows=1 << 40, cols=1 << 40)
    assert "Integer overflow: 1099511627776 * 1099511627776" in info.value.log_lines[0]


@pytest.mark.parametrize("trip, error_line, flagged", [
    (8, "trip 8: null pointer in a void helper.", 0),
    (9, "trip 9: false condition in a void helper.", 0),
    (10, None, 1),
])
def test_void_check_macros_return_from_the_helper(macro_op, trip, error_line, flagged):
    with pytest.raises(AicpuParamInvalidError) as info:
        _trip(macro_op, trip)
    lines = info.value.log_lines
    assert lines[0].startswith("[INFO]") and lines[0].endswith(f"trip {trip}: no timeout check.")
    assert [line for line in lines if line.startswith("[ERROR]")] == ([lines[1]] if error_line else [])
    assert error_line is None or lines[1].endswith(error_line)
    assert lines[-1].startswith("[WARN]") and lines[-1].endswith(f"void helper returned, flagged={flagged}.")


@pytest.mark.parametrize("name", ["MacroNeg", "CustMacroNeg"])
def test_mindspore_macros_with_their_own_semicolon(macro_op, name):
    op = macro_op(name, 1, 1)
    x = np.linspace(-5, 5, 1000, dtype=np.float32)
    (y,) = op([x], [x.shape], ["float32"])
    np.testing.assert_array_equal(y, -x)
    with pytest.raises(AicpuParamInvalidError) as info:
        op([np.ones(3, np.int32)], [(3,)], ["int32"])
    (line,) = info.value.log_lines
    assert line.startswith("[ERROR]") and line.endswith("[MacroNeg] takes float32, got DT_INT32.")
