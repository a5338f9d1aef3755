"""Op test cases as pytest items, so ``pytest -n auto`` (pytest-xdist) spreads them over cores.

Through npusim's pytest plugin::

    pytest --npusim-optest examples/optest/cases.json [--npusim-optest-soc Ascend910,Ascend310P3]
           [--npusim-optest-impl-dir DIR] [--npusim-optest-seed N] [-n 2]

collects one item per case and chip (``cases.json::<case>[<chip>]``); without other paths on the command line only
the case files are collected.  Or from a test module / conftest::

    from npusim.optest.pytest_items import check_case, optest_params

    @pytest.mark.parametrize("case, soc", optest_params("cases.json", socs=("Ascend910",)))
    def test_op(case, soc):
        check_case(case, soc)

Each worker process keeps one session per option set (:func:`~npusim.optest.runner.session_for`) and every worker
shares npusim's on-disk kernel cache, which tolerates concurrent writers.  A case that does not do what its file
expects fails with the verdict, the criteria and the error metrics of each output.
"""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import pytest

OPTION, SOC_OPTION, IMPL_OPTION, SEED_OPTION = ("--npusim-optest", "--npusim-optest-soc",
                                                "--npusim-optest-impl-dir", "--npusim-optest-seed")


class CaseFailed(AssertionError):
    """A case did not do what its file expects (carries the :class:`~npusim.optest.runner.CaseResult`)."""

    def __init__(self, result):
        super().__init__(result.describe())
        self.result = result


def add_options(parser) -> None:
    """The plugin's command-line options (called from ``pytest_addoption``)."""
    group = parser.getgroup("npusim-optest", "npusim op test cases (CANN msopst JSON)")
    group.addoption(OPTION, action="append", default=[], metavar="CASES.json",
                    help="run the cases of this msopst case file as test items (repeatable)")
    group.addoption(SOC_OPTION, default="", metavar="A,B", help="chips to run every case on (default: the current)")
    group.addoption(IMPL_OPTION, action="append", default=[], metavar="DIR",
                    help="where to look for op implementations before the case file's directory (repeatable)")
    group.addoption(SEED_OPTION, type=int, default=0, metavar="N", help="seed of the input data (default 0)")


def options_from_config(config):
    """The :class:`~npusim.optest.runner.RunOptions` the command line asks for."""
    from npusim.optest.runner import RunOptions
    socs = tuple(s.strip() for s in config.getoption(SOC_OPTION).split(",") if s.strip()) or (None,)
    impl_dirs = tuple(str(Path(d).resolve()) for d in config.getoption(IMPL_OPTION))
    return RunOptions(socs=socs, seed=config.getoption(SEED_OPTION), impl_dirs=impl_dirs)


def case_files(config) -> list:
    return [Path(p).resolve() for p in config.getoption(OPTION)]


def add_case_files(config) -> None:
    """Put the case files among the paths pytest collects (instead of the default paths when none was given)."""
    files = [str(p) for p in case_files(config)]
    explicit = getattr(config, "args_source", None) == pytest.Config.ArgsSource.ARGS
    existing = list(config.args) if explicit else []
    resolved = {str(Path(a.split("::")[0]).resolve()) for a in existing}
    config.args[:] = existing + [f for f in files if f not in resolved]


def collect_case_file(file_path: Path, parent) -> Optional["CaseFile"]:
    """The collector of ``file_path`` when it is one of the ``--npusim-optest`` files."""
    if Path(file_path).resolve() in case_files(parent.config):
        return CaseFile.from_parent(parent, path=Path(file_path))
    return None


class CaseFile(pytest.File):
    """A case file: one :class:`CaseItem` per case and chip."""

    def collect(self):
        from npusim.optest.cases import load_cases
        options = options_from_config(self.config)
        cases = load_cases(self.path)
        for soc in options.socs:
            for case in cases:
                name = f"{case.name}[{soc}]" if soc else case.name
                yield CaseItem.from_parent(self, name=name, case=case, soc=soc, options=options)


class CaseItem(pytest.Item):
    """One case on one chip."""

    def __init__(self, *, case, soc, options, **kwargs):
        super().__init__(**kwargs)
        self.case, self.soc, self.options = case, soc, options

    def runtest(self) -> None:
        from npusim.optest.runner import session_for
        result = session_for(self.options).run_case(self.case, self.soc)
        self.user_properties.append(("optest", result.to_json()))
        if not result.ok:
            raise CaseFailed(result)

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, CaseFailed):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style)

    def reportinfo(self):
        return self.path, None, f"optest {self.case.op}: {self.name}"


def optest_params(path, socs=(None,), names=None) -> list:
    """``pytest.param(case, soc, id=...)`` for every case of ``path`` and chip of ``socs`` (for parametrize)."""
    from npusim.optest.cases import load_cases
    cases = load_cases(path, set(names) if names else None)
    return [pytest.param(case, soc, id=f"{case.name}[{soc}]" if soc else case.name)
            for soc in socs for case in cases]


def check_case(case, soc=None, options=None):
    """Run ``case`` on ``soc`` (``options``: a RunOptions, default ones when None); returns its result, or raises
    :class:`CaseFailed` (an AssertionError) when it does not do what its file expects."""
    from npusim.optest.runner import RunOptions, session_for
    result = session_for(options or RunOptions()).run_case(case, soc)
    if not result.ok:
        raise CaseFailed(result)
    return result


__all__ = ["CaseFailed", "CaseFile", "CaseItem", "add_case_files", "add_options", "check_case", "collect_case_file",
           "optest_params", "options_from_config"]
