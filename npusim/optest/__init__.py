"""Op test cases in CANN's msopst form, run on npusim's simulator (``npusim optest CASES.json``).

    from npusim.optest import load_cases, OpTestSession, RunOptions
    cases = load_cases("examples/optest/cases.json")
    results = OpTestSession(RunOptions(socs=("Ascend910", "Ascend310P3"))).run(cases)

Modules: :mod:`~npusim.optest.cases` (the case file format and msopst's expansion), :mod:`~npusim.optest.datagen`
(input data), :mod:`~npusim.optest.impls` (finding TBE / TIK / AICPU implementations), :mod:`~npusim.optest.criteria`
(CANN's precision criteria), :mod:`~npusim.optest.runner` (running and judging), :mod:`~npusim.optest.report`
(table, JSON / CSV, progress bar), :mod:`~npusim.optest.ray_runner` (Ray fan-out), :mod:`~npusim.optest.pytest_items`
(the cases as pytest items).
"""
import importlib

#: public name -> the module that defines it (imported on first use, so the pytest plugin's options cost nothing)
_EXPORTS = {"AttrDesc": "cases", "OpCase": "cases", "TensorDesc": "cases", "load_cases": "cases",
            "PrecisionStandard": "criteria", "Tolerances": "criteria", "compare_output": "criteria",
            "default_standard": "criteria", "CaseResult": "runner", "OpTestSession": "runner",
            "RunOptions": "runner", "session_for": "runner"}


def __getattr__(name):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'npusim.optest' has no attribute {name!r}")
    return getattr(importlib.import_module(f"npusim.optest.{module}"), name)


__all__ = sorted(_EXPORTS)
