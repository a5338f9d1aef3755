"""TBE builds take the target explicitly: the core limit of te_set_version reaches the scheduler, a Custom call
builds for the target of its context (threads included), and the runtime's kernel cache reports its hits."""
import threading

import numpy as np

from mindspore import Tensor, context, ops
import npusim.sim as sim
from npusim.custom.backends.tbe import BUILT_CACHE


def _scale(x, y, kernel_name="scale"):
    import te.lang.cce as tbe
    from te import tvm
    data = tvm.placeholder(x["shape"], name="data", dtype=x["dtype"])
    res = tbe.vmuls(tbe.vexp(data), tvm.const(0.5, x["dtype"]))
    sch = tbe.auto_schedule(res)
    tbe.cce_build_code(sch, {"name": kernel_name, "tensor_list": [data, res]})


def _op():
    context.set_context(device_target="Ascend")
    return ops.Custom(_scale, out_shape=lambda x: x, out_dtype=lambda x: x, func_type="tbe")


def test_te_set_version_core_limit_reaches_the_block_split():
    from te.platform.cce_conf import te_set_version
    op = _op()
    x = np.random.default_rng(0).standard_normal((64, 2048)).astype(np.float32)
    with sim.profile() as prof:
        op(Tensor(x))
        te_set_version("Ascend910", aicore_num=4)
        out = op(Tensor(x)).asnumpy()
    full, limited = prof.rows()
    assert full["block_dim"] == 32 and limited["block_dim"] == 4
    np.testing.assert_allclose(out, np.exp(x) * 0.5, rtol=1e-5)


def test_calls_in_threads_build_for_their_own_targets():
    op = _op()
    x = np.linspace(-2, 2, 4 * 4096).reshape(4, 4096).astype(np.float16)
    seen, errors = {}, []

    def work(chip):
        try:
            with sim.use_target(chip):
                with sim.profile() as prof:
                    out = op(Tensor(x)).asnumpy()
                seen[chip] = (out, {r["chip"] for r in prof.rows() if r["chip"] == sim.get_chip(chip).name})
        except Exception as exc:  # reported below with the chip
            errors.append((chip, exc))

    threads = [threading.Thread(target=work, args=(c,)) for c in ("Ascend310", "Ascend910B1")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    for chip, (out, chips) in seen.items():
        assert chips == {sim.get_chip(chip).name}
        np.testing.assert_allclose(out.astype(np.float32), np.exp(x.astype(np.float32)) * 0.5, rtol=2e-3)


def test_the_runtime_cache_of_built_kernels_counts_hits():
    op = _op()
    x = np.ones((8, 128), np.float32)
    op(Tensor(x))
    before = {s.name: s for s in sim.current_runtime().cache_stats()}[BUILT_CACHE]
    op(Tensor(x))
    after = {s.name: s for s in sim.current_runtime().cache_stats()}[BUILT_CACHE]
    assert after.hits == before.hits + 1 and after.size == before.size
