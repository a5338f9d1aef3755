"""A small nn.Dense network with a TBE ReLU (a CANN-style op file) and its bprop trains 20 steps under real
MindSpore in GRAPH and PYNATIVE mode with SGD and Momentum, with losses equal to the built-in ReLU's; run under
`npusim profile --mindspore real`, which lists the TBE kernels."""
import os

from bridge_env import DATA, failure, mindspore_python, run_npusim


def _losses(stdout: str) -> dict:
    runs = {}
    for line in stdout.splitlines():
        head, sep, tail = line.partition(": ")
        if sep and len(head.split()) == 3:
            runs[tuple(head.split())] = [float(v) for v in tail.split()]
    return runs


def test_tbe_relu_network_trains_like_the_builtin_one_and_profile_lists_its_kernels(tmp_path):
    script = os.path.join(DATA, "train_relu.py")
    proc = run_npusim(mindspore_python(), ["profile", "--mindspore", "real", script, "GRAPH,PYNATIVE", "tbe,builtin",
                                           "sgd,momentum"], tmp_path)
    assert proc.returncode == 0, failure(proc)
    runs = _losses(proc.stdout)
    assert len(runs) == 8, failure(proc)
    for mode in ("GRAPH", "PYNATIVE"):
        for optimizer in ("sgd", "momentum"):
            tbe, builtin = runs[(mode, "tbe", optimizer)], runs[(mode, "builtin", optimizer)]
            assert len(tbe) == 20
            assert tbe == builtin, (mode, optimizer, tbe, builtin)
            assert tbe[-1] < tbe[0] * 0.5, tbe   # it learns
    assert runs[("GRAPH", "tbe", "sgd")] == runs[("PYNATIVE", "tbe", "sgd")]
    table = proc.stdout.split("npusim profile: NPU kernels", 1)[-1]
    kernel_rows = [line for line in table.splitlines() if line.startswith("custom_relu_")]
    # forward ReLU launches: 20 steps x 2 optimizers x 2 modes (the bprop uses built-in ops)
    assert len(kernel_rows) == 80, table[:2000]
    assert all("Ascend910" in row for row in kernel_rows)
