"""pytest plugin (registered as ``npusim``): opt-in compatibility layer for test suites written for MindSpore.

Enable with ``pytest --npusim-compat`` or ``npusim_compat = true`` in the ini file; nothing changes otherwise.
"""


def pytest_addoption(parser):
    parser.addoption("--npusim-compat", action="store_true", default=False,
                     help="serve `mindspore` (and te/tbe/topi) imports from npusim")
    parser.addini("npusim_compat", "serve `mindspore` imports from npusim", type="bool", default=False)


def pytest_configure(config):
    if config.getoption("--npusim-compat") or config.getini("npusim_compat"):
        from npusim.compat import install
        install()
