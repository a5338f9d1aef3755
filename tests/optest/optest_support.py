"""Shared helpers of the op test tests (a uniquely named module, so test files never import "conftest")."""
from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples" / "optest"
SCALED_ADD_GOLDEN = f"{EXAMPLES / 'golden.py'}:calc_scaled_add"


def tensor(name, dtype="float16", shape=(16, 32), **extra) -> dict:
    return {"name": name, "format": "ND", "type": dtype, "shape": list(shape), **extra}


def scaled_add_case(name="Test_ScaledAdd", dtype="float16", shape=(16, 32), alpha=0.5, **extra) -> dict:
    """One ScaledAdd case in msopst form (the example project's TBE op)."""
    return {"case_name": name, "op": "ScaledAdd", "calc_expect_func_file": SCALED_ADD_GOLDEN,
            "input_desc": [tensor("x1", dtype, shape, value_range=[-1.0, 1.0]),
                           tensor("x2", dtype, shape, value_range=[-1.0, 1.0])],
            "output_desc": [tensor("y", dtype, shape)],
            "attr": [{"name": "alpha", "type": "float", "value": alpha}], **extra}


def write_cases(path: Path, cases) -> Path:
    path.write_text(json.dumps(cases, indent=1))
    return path


def copy_examples(target: Path) -> Path:
    """A copy of examples/optest (case files, golden, op project) under ``target``."""
    shutil.copytree(EXAMPLES, target, ignore=shutil.ignore_patterns("__pycache__"))
    return target


def subprocess_env() -> dict:
    return dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
