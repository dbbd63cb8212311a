"""Where minelab reads and writes: nothing is ever written into the installed package.

Reads
  published numbers  data/published/*.csv of the checkout minelab runs from; in a wheel
                     install, the same files shipped inside the package (minelab._published)
  kept results       $MINELAB_KEPT, else <project>/data/kept: results of long tasks kept with
                     the project (`minelab keep`), served by the sweep like its cache
  golden digests     minelab/agents/behaviour.json: each agent's golden-playthrough digest
                     (written only by `python -m minelab.playthrough --regenerate`), the
                     code stamp of cached results and of recorded numbers

Writes, all under the *project directory*:
  project            $MINELAB_PROJECT if set; else the nearest directory, from the current
                     one upwards, that is a minelab checkout (it holds notebooks/ and
                     data/published/); else the current directory
  figures            $MINELAB_FIGURES_DIR, else <project>/figures
  results            $MINELAB_RESULTS, else <project>/data/results (the sweep's cache)
  kept results       `minelab keep` copies long tasks' results from the cache to data/kept
  build              <project>/build (executed notebooks)
  bench figures      <project>/data/bench/<WHAT>.csv (`minelab bench WHAT --save`)
  notebooks          <project>/notebooks in a checkout; else the copies shipped in the
                     package (minelab._notebooks), so a wheel install reproduces too

So `minelab reproduce` run from one clone writes into that clone, whichever clone's
installation it uses, and a wheel install run from a scratch directory writes there.

    >>> import minelab.paths as paths
    >>> (paths.published_dir() / "items.csv").exists()
    True
"""
from __future__ import annotations

import importlib
import json
import os
from functools import lru_cache
from pathlib import Path

PROJECT_ENV = "MINELAB_PROJECT"
FIGURES_ENV = "MINELAB_FIGURES_DIR"
RESULTS_ENV = "MINELAB_RESULTS"
KEPT_ENV = "MINELAB_KEPT"
_CHECKOUT = Path(__file__).resolve().parent.parent  # the checkout, when minelab runs from one
BEHAVIOUR_FILE = Path(__file__).resolve().parent / "agents" / "behaviour.json"  # golden-playthrough digests


@lru_cache(maxsize=1)
def golden_digests() -> dict[str, str]:
    """{agent: digest of its golden playthrough} as behaviour.json holds them ({} when it
    is missing), read once per process (shared: copy before changing it; `playthrough
    --regenerate` clears the cache). Plain data, so the report stamps numbers without
    importing the agents."""
    try:
        return json.loads(BEHAVIOUR_FILE.read_text())
    except FileNotFoundError:
        return {}


def is_checkout(folder: Path) -> bool:
    """True for a directory laid out like the minelab repository (notebooks/ and data/published/).

        is_checkout(Path("."))   # True at the top of a clone
    """
    return (folder / "notebooks").is_dir() and (folder / "data" / "published").is_dir()


def project_dir() -> Path:
    """The directory minelab writes under (see the module docstring).

        MINELAB_PROJECT=/data/run1 minelab reproduce      # writes /data/run1/figures, ...
    """
    env = os.environ.get(PROJECT_ENV)
    if env:
        return Path(env).expanduser().resolve()
    here = Path.cwd().resolve()
    for folder in (here, *here.parents):
        if is_checkout(folder):
            return folder
    return here


def published_dir() -> Path:
    """The folder of the published-number CSVs: the checkout's data/published when
    minelab runs from one (edits there count at once), else the copy shipped in the package."""
    if is_checkout(_CHECKOUT):
        return _CHECKOUT / "data" / "published"
    return _shipped("minelab._published")


def _shipped(package: str) -> Path:
    """The folder of a data package shipped in the wheel (a namespace package: no __init__)."""
    return Path(next(iter(importlib.import_module(package).__path__)))


def figures_root() -> Path:
    """$MINELAB_FIGURES_DIR, else <project>/figures."""
    env = os.environ.get(FIGURES_ENV)
    return Path(env).expanduser() if env else project_dir() / "figures"


def results_root() -> Path:
    """$MINELAB_RESULTS, else <project>/data/results (the sweep's result cache)."""
    env = os.environ.get(RESULTS_ENV)
    return Path(env).expanduser() if env else project_dir() / "data" / "results"


def kept_root() -> Path:
    """$MINELAB_KEPT, else <project>/data/kept: the results of long tasks that the project
    keeps under version control (`minelab keep`), so that a paper-size run on another
    machine starts from them. The sweep serves one only when today's code made it."""
    env = os.environ.get(KEPT_ENV)
    return Path(env).expanduser() if env else project_dir() / "data" / "kept"


def build_dir() -> Path:
    """<project>/build: the executed copies of the notebooks."""
    return project_dir() / "build"


def notebooks_dir() -> Path:
    """<project>/notebooks in a checkout; else the notebooks of the checkout minelab is
    installed from (an editable install), or the copies shipped in a wheel."""
    for folder in (project_dir() / "notebooks", _CHECKOUT / "notebooks"):
        if folder.is_dir() and is_checkout(folder.parent):
            return folder
    try:
        return _shipped("minelab._notebooks")
    except ModuleNotFoundError:
        raise ValueError("no notebooks found: run from a minelab checkout, or install minelab "
                         "(pip install .) so that it ships them") from None
