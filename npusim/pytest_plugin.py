"""pytest plugin (registered as ``npusim``): opt-in compatibility layer for test suites written for MindSpore / CANN.

Enable with ``pytest --npusim-compat`` or ``npusim_compat = true`` in the ini file; nothing changes otherwise.  When
enabled, the layer is switched on once in ``pytest_configure``, before any test module is collected: the old-Python
shims (``from collections import Iterable`` ...) and the ``mindspore`` / ``te`` / ``tbe`` / ``topi`` / ``impl``
aliases (see :mod:`npusim.compat`).  ``--npusim-optest CASES.json`` runs op test case files as items (see
:mod:`npusim.optest.pytest_items`).  The plugin loads automatically once npusim is installed; with
``PYTEST_DISABLE_PLUGIN_AUTOLOAD`` set, name it with ``-p npusim``.
"""


def pytest_addoption(parser):
    parser.addoption("--npusim-compat", action="store_true", default=False,
                     help="serve `mindspore`, `te`, `tbe`, `topi`, `impl` imports from npusim where the project has "
                          "none, and install the old-Python shims (collections.Iterable ...)")
    parser.addini("npusim_compat", "switch npusim's compatibility layer on (as --npusim-compat)", type="bool",
                  default=False)
    from npusim.optest.pytest_items import add_options  # op test case files as items (npusim.optest)
    add_options(parser)


def pytest_configure(config):
    if config.getoption("--npusim-compat") or config.getini("npusim_compat"):
        from npusim.compat import install
        install()
    if config.getoption("--npusim-optest"):
        from npusim.optest.pytest_items import add_case_files
        add_case_files(config)


def pytest_collect_file(file_path, parent):
    """``--npusim-optest CASES.json``: the case file's cases as items (see :mod:`npusim.optest.pytest_items`)."""
    if parent.config.getoption("--npusim-optest"):
        from npusim.optest.pytest_items import collect_case_file
        return collect_case_file(file_path, parent)
    return None
