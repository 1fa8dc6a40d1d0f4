"""The package installs as a wheel under the single import name `sessionscope` and runs."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
import venv
import zipfile
from pathlib import Path

import pytest
from helpers import ROOT

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        # Built with this environment's setuptools (the test extras hold the build-system's
        # requirements): an isolated build installs them afresh each run (~7 s of CPU), and the
        # README's installs already build in isolation.
        [sys.executable, "-m", "pip", "wheel", str(ROOT), "--no-deps", "--no-build-isolation", "-q", "-w", str(out)],
        check=True, capture_output=True, text=True,
    )
    (whl,) = out.glob("sessionscope-*.whl")
    return whl


def test_wheel_holds_one_import_name(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    tops = {n.split("/")[0] for n in names if not n.split("/")[0].endswith((".dist-info", ".data"))}
    assert tops == {"sessionscope"}
    assert "sessionscope/core/model.py" in names
    assert "sessionscope/cli/main.py" in names
    assert not any("/tests/" in n or "/bench/" in n for n in names)
    assert any(n.startswith("sessionscope/styles/") and n.endswith(".tcss") for n in names)
    assert "sessionscope/cli/templates/app_index.html" in names  # the page `serve` sends
    # the demo corpus's templates: every file its manifest lists
    data = ROOT / "core" / "demo" / "data"
    listed = {"manifest.json"} | {e["template"] for e in json.loads(
        (data / "manifest.json").read_text())["files"]}
    assert {f"sessionscope/core/demo/data/{t}" for t in listed} <= set(names)


def test_wheel_installs_and_runs_in_a_fresh_venv(wheel: Path, tmp_path: Path) -> None:
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=False).create(env_dir)  # (ensurepip costs ~8 s of CPU: this pip installs into it)
    py = env_dir / "bin" / "python"
    subprocess.run([sys.executable, "-m", "pip", "--python", str(py), "install", "-q", "--no-deps", "--no-index",
                    str(wheel)], check=True, capture_output=True, text=True)
    # Dependencies come from this test environment's site-packages (no network needed); the
    # throwaway venv's own site-packages, holding the wheel, comes first on sys.path.
    site = subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          check=True, capture_output=True, text=True).stdout.strip()
    (Path(site) / "_deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    assert not (Path(site) / "core").exists() and not (Path(site) / "tui").exists()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH",)}
    env["SESSIONSCOPE_CACHE_DIR"] = str(tmp_path / "cache")
    run = subprocess.run([str(env_dir / "bin" / "sessionscope"), "--help"],
                         capture_output=True, text=True, env=env, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert "sessions" in run.stdout and "search" in run.stdout
    where = subprocess.run([str(py), "-c", "import sessionscope.core.model as m; print(m.__file__)"],
                           capture_output=True, text=True, env=env, cwd=tmp_path)
    assert where.stdout.startswith(str(env_dir)), where.stdout + where.stderr
    mod = subprocess.run([str(py), "-m", "sessionscope", "sessions", "--demo", "--json", "--limit", "2"],
                         capture_output=True, text=True, env=env, cwd=tmp_path)
    assert mod.returncode == 0, mod.stderr
    assert '"sessions"' in mod.stdout
