"""`python -m npusim` in the root of an unbuilt source checkout, with a built npusim installed elsewhere, imports the
checkout (the current directory comes first on sys.path): npusim says so and what to do instead of failing later
with "not built: install with pip" (issue 11, item 18).  Fake trees stand in for the checkout and the install."""
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from npusim.util.checkout import AICPU_ARTIFACTS, inspect_checkout, unbuilt_advice

REPO = Path(__file__).resolve().parents[2]


def make_checkout(root: Path, built: bool = False) -> Path:
    """A source checkout: pyproject.toml beside npusim/ with the bridge's Cython source; ``built``: with the
    compiled bridge and the AICPU artifacts too."""
    (root / "npusim" / "aot").mkdir(parents=True)
    (root / "pyproject.toml").write_text("[project]\nname = 'npusim'\n")
    (root / "npusim" / "__init__.py").write_text("")
    (root / "npusim" / "aot" / "_bridge.pyx").write_text("# the call bridge's source\n")
    if built:
        (root / "npusim" / "aot" / "_bridge.cpython-311-x86_64-linux-gnu.so").write_bytes(b"\x7fELF")
        for name in AICPU_ARTIFACTS:
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            (root / name).write_bytes(b"built")
    return root / "npusim"


def make_site(site: Path, editable_root: Path = None) -> Path:
    """A site-packages directory with an installed npusim (a copy of the package, or an editable install
    pointing at ``editable_root``)."""
    info = site / "npusim-0.1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: npusim\nVersion: 0.1.0\n")
    if editable_root is None:
        (site / "npusim").mkdir()
        (site / "npusim" / "__init__.py").write_text("")
        (info / "direct_url.json").write_text(json.dumps({"dir_info": {}, "url": "file:///somewhere/npusim"}))
        return site / "npusim"
    (info / "direct_url.json").write_text(json.dumps({"dir_info": {"editable": True},
                                                      "url": editable_root.as_uri()}))
    return editable_root / "npusim"


def test_an_unbuilt_checkout_shadowing_an_installed_copy_is_detected(tmp_path):
    package = make_checkout(tmp_path / "src")
    installed = make_site(tmp_path / "site")
    state = inspect_checkout(package, [str(tmp_path / "src"), str(tmp_path / "site")])
    assert state.checkout_root == tmp_path / "src" and state.unbuilt and state.shadows_installed_copy
    assert state.installed_copy == installed
    assert "npusim/aot/_bridge*.so" in state.missing and set(AICPU_ARTIFACTS) <= set(state.missing)
    advice = unbuilt_advice(state)
    assert str(tmp_path / "src") in advice and str(installed) in advice
    assert "run from another directory" in advice and f"pip install -e {tmp_path / 'src'}" in advice


def test_an_editable_install_elsewhere_counts_as_an_installed_copy(tmp_path):
    package = make_checkout(tmp_path / "src")
    other = make_checkout(tmp_path / "other", built=True)
    make_site(tmp_path / "site", editable_root=tmp_path / "other")
    state = inspect_checkout(package, [str(tmp_path / "src"), str(tmp_path / "site")])
    assert state.shadows_installed_copy and state.installed_copy == other


def test_the_checkout_itself_does_not_count_as_an_installed_copy(tmp_path):
    package = make_checkout(tmp_path / "src")
    make_site(tmp_path / "site", editable_root=tmp_path / "src")       # `pip install -e .` of this very checkout
    state = inspect_checkout(package, [str(tmp_path / "src"), str(tmp_path / "site")])
    assert state.unbuilt and state.installed_copy is None and not state.shadows_installed_copy
    advice = unbuilt_advice(state)
    assert "run from another directory" not in advice and f"pip install -e {tmp_path / 'src'}" in advice


def test_a_built_checkout_and_an_installed_package_are_fine(tmp_path):
    built = inspect_checkout(make_checkout(tmp_path / "src", built=True), [str(tmp_path / "site")])
    assert built.checkout_root == tmp_path / "src" and not built.unbuilt and built.missing == ()
    installed = inspect_checkout(make_site(tmp_path / "site"), [str(tmp_path / "site")])
    assert installed.checkout_root is None and not installed.unbuilt and not installed.shadows_installed_copy
    assert "reinstall npusim with pip" in unbuilt_advice(installed)


def test_a_checkout_with_its_bridge_built_in_place_is_used_as_it_is(tmp_path):
    """`setup.py build_ext --inplace` builds the bridge only: the AICPU artifacts are built on first use."""
    package = make_checkout(tmp_path / "src")
    (package / "aot" / "_bridge.cpython-311-x86_64-linux-gnu.so").write_bytes(b"\x7fELF")
    make_site(tmp_path / "site")
    state = inspect_checkout(package, [str(tmp_path / "src"), str(tmp_path / "site")])
    assert set(state.missing) == set(AICPU_ARTIFACTS) and not state.unbuilt and not state.shadows_installed_copy


def test_this_repository_is_not_reported(tmp_path):
    """The npusim the suite runs is usable as it is (built in place, or installed)."""
    assert not inspect_checkout().shadows_installed_copy


# ---- through the command line ---------------------------------------------------------------------------------
@pytest.fixture
def unbuilt_copy(tmp_path):
    """A copy of this npusim package without its compiled parts, in a fake checkout root."""
    root = tmp_path / "checkout"
    shutil.copytree(REPO / "npusim", root / "npusim",
                    ignore=shutil.ignore_patterns("__pycache__", "*.so", "_bridge.cpp"))
    (root / "pyproject.toml").write_text("[project]\nname = 'npusim'\n")
    (root / "script.py").write_text("print('the script ran')\n")
    return root


def test_python_m_npusim_in_an_unbuilt_checkout_says_what_to_do(unbuilt_copy, tmp_path):
    site = tmp_path / "site"
    installed = make_site(site)
    env = dict(os.environ, PYTHONPATH=str(site))
    done = subprocess.run([sys.executable, "-m", "npusim", "run", "script.py"], cwd=unbuilt_copy,
                          capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 1 and "the script ran" not in done.stdout
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert str(unbuilt_copy) in done.stderr and str(installed) in done.stderr
    assert "run from another directory" in done.stderr and "pip install -e" in done.stderr


def test_the_missing_bridge_error_names_the_checkout_and_the_fix(unbuilt_copy):
    code = ("from npusim.aot.library import bridge\n"
            "try:\n    bridge()\nexcept NotImplementedError as exc:\n    print(exc)\n")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run([sys.executable, "-c", code], cwd=unbuilt_copy, capture_output=True, text=True,
                          env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    assert str(unbuilt_copy) in done.stdout and f"pip install -e {unbuilt_copy}" in done.stdout
