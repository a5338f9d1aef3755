"""Op semantics through real MindSpore: attributes, gradients, ms.jit, the PYNATIVE fast path, the context, and
the limits' error messages (tests/bridge/data/bridge_checks.py prints what it saw)."""
import os

import pytest

from bridge_env import DATA, failure, last_json, mindspore_python, run_npusim

X = [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]


@pytest.fixture(scope="module")
def seen(tmp_path_factory):
    proc = run_npusim(mindspore_python(), ["run", "--mindspore", "real", os.path.join(DATA, "bridge_checks.py")],
                      tmp_path_factory.mktemp("checks"))
    assert proc.returncode == 0, failure(proc)
    return last_json(proc.stdout)


def test_ascend_target_is_remembered_while_mindspore_stays_on_cpu(seen):
    assert seen["mindspore_target"] == "CPU"
    assert seen["requested_target"] == "Ascend"


@pytest.mark.parametrize("mode", ["PYNATIVE", "GRAPH"])
def test_scalar_attribute_forward_gradient_and_jit(seen, mode):
    assert seen[f"{mode} forward"] == [[3 * v * v for v in row] for row in X]
    # the user's bprop returns no gradient for the float attribute: the bridge pads it
    assert seen[f"{mode} grad"] == [[6 * v for v in row] for row in X]
    assert seen[f"{mode} jit"] == [[3 * v + 1 for v in row] for row in X]


def test_pynative_without_gradient_skips_mindspore_dispatch(seen):
    assert seen["fast path value"] == [[2 * v for v in row] for row in X]
    assert seen["fast path dispatches"] == 0
    assert seen["grad dispatches"] >= 1


@pytest.mark.parametrize("case, error, words", [
    ("dynamic shape", "BridgeUnsupportedError", "data-dependent shape"),
    ("bfloat16", "BridgeUnsupportedError", "bfloat16"),
    ("undeclared str in graph", "BridgeAttributeError", "declare it in the op's reg info"),
])
def test_limits_fail_with_a_message_naming_the_op(seen, case, error, words):
    kind, message = seen[case]
    assert kind == error, message
    assert "scale_op" in message and words in message


def test_hybrid_runs_simulated_on_ascend_and_pyfunc_stays_mindspore(seen):
    assert seen["hybrid simulated"] is True
    assert seen["hybrid value"] == [[2 * v for v in row] for row in X]
    assert seen["pyfunc untouched"] is True
