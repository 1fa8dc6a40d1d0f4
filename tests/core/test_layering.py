"""The direction of imports, as pyproject.toml's import-linter contracts state it (issue 12).

core/ imports only downward (foundation, read, catalog and memory, search, then live, brief and
demo), never textual, rich, the app or the command line; the app never imports the command line;
inside core/read the listing, the adapters and `ends` import one way; inside core/search a query's
path reads top to bottom. Each subpackage's __init__ docstring says the same in words.
"""
from __future__ import annotations

import importlib.util
import subprocess
import sys
import tomllib

import pytest
from helpers import ROOT

LINT = ("import sys; from importlinter.cli import lint_imports; "
        "sys.exit(lint_imports(config_filename='pyproject.toml', no_cache=True, no_logo=True))")


def test_import_contracts_hold() -> None:
    """`lint-imports` over the installed package reports every contract pyproject.toml declares
    as kept; a broken one fails with the linter's message (the importing module, the line, the
    chain of imports)."""
    if importlib.util.find_spec("importlinter") is None:
        pytest.fail("import-linter is not installed: pip install -e '.[test]' (it is a test dependency)")
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    names = [c["name"] for c in config["contracts"]]
    run = subprocess.run([sys.executable, "-c", LINT], cwd=ROOT, capture_output=True, text=True)
    out = run.stdout + run.stderr
    assert "Contracts:" in out, out  # the linter ran (a configuration error says otherwise)
    assert run.returncode == 0, out[out.find("Broken contracts"):] if "Broken contracts" in out else out
    report = " ".join(run.stdout.split())  # (long names are wrapped)
    assert [n for n in names if f"{n} KEPT" not in report] == [], report


def test_the_package_list_is_every_folder_with_an_init() -> None:
    """pyproject.toml's `packages` names every directory holding an __init__.py under cli/,
    core/ and tui/ (setuptools leaves a forgotten subpackage out of the wheel without a word), and
    nothing else."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(config["packages"])
    found = {"sessionscope"} | {
        "sessionscope." + ".".join(init.parent.relative_to(ROOT).parts)
        for top in ("cli", "core", "tui")
        for init in (ROOT / top).rglob("__init__.py")
        if "__pycache__" not in init.parts
    }
    assert listed == found, f"missing: {sorted(found - listed)}, not a package: {sorted(listed - found)}"

