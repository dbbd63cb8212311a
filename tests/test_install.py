"""A wheel, installed into a fresh venv and used from a scratch directory, works without the
checkout: it plays, reads the published numbers shipped inside it, and reproduces a
notebook, writing under the scratch directory and never into the installed package.

The fresh venv gets minelab from the wheel only; its third-party dependencies are borrowed
from the test's own environment through a path file (a plain path line: the editable
install of the checkout that lives there is not activated), so the test needs no network
and checks what the wheel itself carries.
"""
import json
import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.slow


def run(cmd, cwd, env=None, timeout=600):
    done = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, f"{' '.join(map(str, cmd))} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done.stdout


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    base = tmp_path_factory.mktemp("wheel")
    wheels = base / "dist"
    run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(wheels), str(ROOT)], cwd=base)
    (wheel,) = wheels.glob("minelab-*.whl")
    venv = base / "venv"
    run([sys.executable, "-m", "venv", str(venv)], cwd=base)
    python = venv / "bin" / "python"
    site = Path(run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], cwd=base).strip())
    (site / "_borrowed_deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    run([str(python), "-m", "pip", "install", "--no-deps", "--no-index", "-q", str(wheel)], cwd=base)
    scratch = base / "scratch"
    scratch.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("MINELAB_")}
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    env["PYTHONNOUSERSITE"] = "1"
    return {"python": python, "bin": venv / "bin", "site": site, "scratch": scratch, "env": env}


def test_the_wheel_is_what_runs(installed):
    where = run([str(installed["python"]), "-c", "import minelab, minelab.paths as p; "
                 "print(minelab.__file__); print(p.published_dir()); print(p.notebooks_dir())"],
                cwd=installed["scratch"], env=installed["env"]).split()
    for path in where:
        assert Path(path).resolve().is_relative_to(installed["site"].resolve()), where


def test_plays_and_reads_published_numbers(installed):
    out = run([str(installed["bin"] / "minelab"), "play", "random", "5x5x3", "--games", "200", "--json"],
              cwd=installed["scratch"], env=installed["env"])
    row = json.loads(out)
    assert row["games"] == 200 and 0 <= row["ci_low"] <= row["win_rate"] <= row["ci_high"] <= 1
    out = run([str(installed["python"]), "-c", "from minelab import report; "
               "print(len(report.load_published('lordeiro2021')), len(report.load_items()))"],
              cwd=installed["scratch"], env=installed["env"])
    published, items = map(int, out.split())
    assert published > 50 and items > 40
    out = run([str(installed["python"]), "-c", "from minelab.viewer import BoardGrid; "
               "print(len(str(BoardGrid._esm)))"], cwd=installed["scratch"], env=installed["env"])
    assert int(out) > 1000  # the board's script ships in the wheel


def test_reproduces_a_notebook_into_the_scratch_directory(installed):
    scratch = installed["scratch"]
    out = run([str(installed["bin"] / "minelab"), "reproduce", "--profile", "smoke", "--only",
               "gardea2015_training_solver"], cwd=scratch, env=installed["env"], timeout=900)
    assert "gardea2015_training_solver" in out and "REPORT.md" in out
    assert (scratch / "figures" / "REPORT.md").exists()
    assert (scratch / "figures" / "gardea2015" / "measured.csv").exists()
    assert (scratch / "build" / "gardea2015_training_solver.ipynb").exists()
    assert any((scratch / "data" / "results").rglob("*.parquet"))
    written = [p for p in installed["site"].joinpath("minelab").rglob("*")
               if p.suffix in (".png", ".md", ".parquet") or p.name == "measured.csv"]
    assert written == [], f"reproduce wrote into the installed package: {written[:5]}"
