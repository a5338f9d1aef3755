"""On Ascend910 (results leave L0C through UB) the pieces a core's last sub-tile leaves L0C in while the cube runs
the next (te_compat/cube/kernel.py ``_split_k_steps``) are cast (and relu'd) by the move out of L0C itself,
``copy_matrix_cc_to_ubuf`` (te_compat/cube/fixpipe_out.py ``ub_convert``): bit for bit what the move, vconv and
vrelu give, with less of the epilogue after the last mmad.  A bias keeps the float32 accumulator in UB.  The
shapes run one tile per core (the tail is pieced only then)."""
import numpy as np
import pytest

from npusim.sim import profile, set_chip
import te_compat.cube.kernel as cube_kernel
from tests.cube.test_cube_fixpipe_910b import _build_and_run

CONVERT = "copy_matrix_cc_to_ubuf"


@pytest.mark.parametrize("shape, relu, bias", [((1024, 256, 1024), True, False), ((1024, 256, 1024), False, False),
                                               ((1024, 256, 1024), True, True)])
def test_pieces_convert_on_the_way_out_bit_for_bit(shape, relu, bias, monkeypatch):
    set_chip("Ascend910")
    m, k, n = shape
    with profile() as prof:
        got, ref, opcodes = _build_and_run(m, k, n, sum(shape), "float16", relu, bias=bias)
    converted = prof.rows()[-1]["cycles"]
    np.testing.assert_allclose(got.astype(np.float32), ref, rtol=2e-3, atol=2e-2)
    assert (CONVERT in opcodes) == (not bias)
    monkeypatch.setattr(cube_kernel, "ub_convert", lambda graph, chip, bias: None)
    with profile() as prof:
        plain, _, plain_opcodes = _build_and_run(m, k, n, sum(shape), "float16", relu, bias=bias)
    assert CONVERT not in plain_opcodes
    assert got.tobytes() == plain.tobytes()
    if not bias:
        assert converted < prof.rows()[-1]["cycles"]
