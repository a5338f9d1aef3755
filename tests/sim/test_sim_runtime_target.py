"""The explicit Target and Runtime: resolved once at the API edge, passed down; ContextVar scoping; isolation."""
import threading

import numpy as np
import pytest

import npusim.sim as sim
from npusim.errors import OverflowModeError, UnknownChipError
from npusim.sim import KernelBuilder, Target, current_runtime, current_target, get_chip, new_runtime, use_target


def _vadd_kernel(n=256, name="vadd_rt"):
    kb = KernelBuilder(name, block_dim=1)
    x = kb.tensor("float16", (n,), "GM", "x")
    y = kb.tensor("float16", (n,), "GM", "y")
    ua = kb.tensor("float16", (n,), "UB", "ua")
    ub = kb.tensor("float16", (n,), "UB", "ub")
    kb.data_move(ua, x, 0, 1, n * 2 // 32, 0, 0)
    kb.data_move(ub, x, 0, 1, n * 2 // 32, 0, 0)
    kb.vadd(128, ua, ua, ub, n // 128, 1, 1, 1, 8, 8, 8)
    kb.data_move(y, ua, 0, 1, n * 2 // 32, 0, 0)
    return kb.build(inputs=[x], outputs=[y], check=False)


def _run(kernel, runtime, n=256):
    dev = runtime.device
    x = np.arange(n, dtype=np.float16) / 8
    px, py = dev.to_device(x), dev.malloc(n * 2)
    record = dev.run(kernel, [px, py])
    out = dev.from_device(py, (n,), "float16")
    dev.free(px)
    dev.free(py)
    return out, record


def test_default_target_follows_set_chip_and_the_environment(monkeypatch):
    monkeypatch.delenv("NPUSIM_SOC", raising=False)
    assert current_target().name == "Ascend910"
    monkeypatch.setenv("NPUSIM_SOC", "Ascend310")
    assert current_target().name == "Ascend310"
    sim.set_chip("Ascend910B")              # set_chip wins over the environment
    assert current_target().name == "Ascend910B1"
    sim.set_chip(None)
    assert current_target().name == "Ascend310"


def test_a_bad_setting_raises_on_every_call(monkeypatch):
    monkeypatch.setenv("NPUSIM_SOC", "Ascend999")
    for _ in range(2):
        with pytest.raises(UnknownChipError, match="Ascend999"):
            current_runtime()
    monkeypatch.setenv("NPUSIM_SOC", "Ascend910")
    monkeypatch.setenv("NPUSIM_SAT_MODE", "inf_nan")
    with pytest.raises(OverflowModeError, match="Ascend910 does not support"):
        current_runtime()


def test_use_target_nests_and_restores():
    outer = current_runtime()
    with use_target("Ascend310") as rt310:
        assert current_target().name == "Ascend310" and rt310.store is outer.store
        with use_target(overflow_mode="saturation") as inner:
            assert inner.target.name == "Ascend310" and inner.target.overflow_mode == "saturation"
        with use_target("Ascend910B1", overflow_mode="saturation") as b1:
            assert b1.target.overflow_mode == "saturation"
        assert current_runtime() is rt310
    assert current_runtime() is outer


def test_threads_see_their_own_target_and_get_their_chips_numerics():
    """Two threads, two targets at once: each launch runs on its own thread's chip (the profile says so)."""
    kernel = _vadd_kernel()
    results = {}

    def work(chip_name):
        with use_target(chip_name) as rt:
            for _ in range(5):
                out, record = _run(kernel, rt)
                results.setdefault(chip_name, []).append((record.chip.name, current_target().name, out))

    with sim.profile() as prof:
        threads = [threading.Thread(target=work, args=(c,)) for c in ("Ascend310", "Ascend910B1")]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    for chip_name, rows in results.items():
        canonical = get_chip(chip_name).name
        assert all(r[0] == canonical and r[1] == canonical for r in rows)
        np.testing.assert_array_equal(rows[0][2], (np.arange(256, dtype=np.float16) / 8) * 2)
    assert {r["chip"] for r in prof.rows()} == {"Ascend310", "Ascend910B1"} and len(prof.rows()) == 10


def test_a_new_thread_starts_on_the_default_target():
    seen = []
    with use_target("Ascend310"):
        thread = threading.Thread(target=lambda: seen.append(current_target().name))
        thread.start()
        thread.join()
    assert seen == ["Ascend910"]


def test_an_isolated_runtime_shares_nothing():
    iso = new_runtime("Ascend310")
    assert iso.store is not current_runtime().store
    kernel = _vadd_kernel(name="vadd_iso")
    with sim.profile() as process_prof, sim.profile(iso) as iso_prof:
        _run(kernel, iso)
    assert not process_prof.records and len(iso_prof.records) == 1
    assert iso.store.sim.compiled.stats().size == 1
    iso.store.close()


def test_target_equality_is_by_key_and_cores_are_capped():
    chip = get_chip("Ascend310")
    assert Target.of(chip, 64).core_num == chip.aicore_num
    assert Target.of(chip) == Target.of(get_chip("Ascend310"))
    assert hash(Target.of(chip, 1)) != hash(Target.of(chip))
    assert Target.of(get_chip("Ascend910B1")) != Target.of(get_chip("Ascend910B1", "saturation"))


def test_device_reports_to_the_runtime_it_belongs_to():
    iso = new_runtime("Ascend910")
    dev = sim.Device(runtime=iso)
    with sim.profile(iso) as prof:
        _run(_vadd_kernel(name="vadd_dev"), type("R", (), {"device": dev})())
    assert [r.kernel.name for r in prof.records] == ["vadd_dev"]
    iso.store.close()
