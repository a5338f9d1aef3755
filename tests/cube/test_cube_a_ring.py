"""The cube schedule's L0A ring (te_compat/cube/kernel.py ``CubeWriter._a_ring``): when four k-steps of A fit L0A,
MTE1 moves each k-step's A panel while the cube still runs the k-step before, so after a mmad frees an L0B slot the
next mmad waits for one B panel only.  Same instructions, same results; a shorter estimate where MTE1 limits (the
narrow last sub-tile of Ascend910's 1024^3 tiles: 4 columns, whose A and B panels take MTE1 about as long as the
mmad takes the cube)."""
import numpy as np
import pytest

from npusim.sim import set_chip
from te_compat.cube.kernel import CubeWriter
from tests.cube.test_cube_tiling_profile import launch


def _run(monkeypatch, ring: bool):
    if not ring:
        monkeypatch.setattr(CubeWriter, "_a_ring", lambda self, step_bytes: self.l0_slots)
    _, _, out, prof, _ = launch(5)
    monkeypatch.undo()
    return out, prof.rows()[-1]["cycles"], prof.records[-1].trace


def test_ring_keeps_the_result_and_shortens_the_estimate(monkeypatch):
    set_chip("Ascend910")
    ringed, ring_cycles, trace = _run(monkeypatch, ring=True)
    plain, plain_cycles, plain_trace = _run(monkeypatch, ring=False)
    assert np.array_equal(ringed.view(np.uint16), plain.view(np.uint16))
    assert ring_cycles < 0.99 * plain_cycles
    # the ring takes four k-steps of A (8 x 4 fractals, 16 KiB each) in L0A, two slots without it
    l0a = [t for t in trace.statics if "l0a[" in t.text and t.text.startswith("data_move(dst=l0a")]
    offsets = {int(t.text.split("l0a[")[1].split("]")[0]) for t in l0a if t.text.split("l0a[")[1][0].isdigit()}
    assert max(offsets) >= 3 * 8192 and all(o < 4 * 8192 for o in offsets)


@pytest.mark.parametrize("chip_name, m, k, n", [("Ascend910", 512, 1024, 2048), ("Ascend910", 2048, 2048, 1024),
                                                ("Ascend910B1", 512, 1024, 2048), ("Ascend910B1", 2048, 1024, 1024),
                                                ("Ascend910", 256, 512, 256)])
def test_other_shapes_give_the_same_bits_with_and_without_the_ring(monkeypatch, chip_name, m, k, n):
    """Shapes whose k-steps fill whole turns of the ring (several tiles per core, planned first loads of 1 or 3
    k-steps) give the same bits as without it; a shape whose k-steps do not keeps the two L0 slots."""
    set_chip(chip_name)
    from tests.cube.test_cube_tiling_plan import _run_nz
    rings = []
    original = CubeWriter._a_ring

    def spy(self, step_bytes):
        rings.append(original(self, step_bytes))
        return rings[-1]
    monkeypatch.setattr(CubeWriter, "_a_ring", spy)
    got, ref, _ = _run_nz(m, k, n, seed=7)
    assert rings == ([2] if (m, k, n) == (256, 512, 256) else [4])
    monkeypatch.setattr(CubeWriter, "_a_ring", lambda self, step_bytes: self.l0_slots)
    plain, _, _ = _run_nz(m, k, n, seed=7)
    assert np.array_equal(got, plain)
    assert np.all(np.abs(got - ref) <= 2e-3 * np.abs(ref) + 5e-2)
