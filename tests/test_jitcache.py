"""numba's cache follows the source of the whole package: a kernel compiled against other
code (a callee in another file) is never loaded from the cache."""
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numba

import minelab
from minelab import _jitcache

PACKAGE = Path(minelab.__file__).resolve().parent


def test_cache_folder_is_named_after_the_source():
    digest = _jitcache.source_digest()
    assert numba.config.CACHE_DIR.endswith(digest) and Path(numba.config.CACHE_DIR).is_dir()
    assert os.environ["NUMBA_CACHE_DIR"] == numba.config.CACHE_DIR


def test_any_edit_anywhere_changes_the_digest(tmp_path):
    copy = tmp_path / "minelab"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    before = _jitcache.source_digest(copy)
    assert before == _jitcache.source_digest()
    probability = copy / "probability.py"
    probability.write_text(probability.read_text() + "\n# an edit in a callee's file\n")
    assert _jitcache.source_digest(copy) != before


def test_a_fresh_process_uses_the_folder_of_its_source(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "MINELAB_SOURCE_DIGEST")}
    env["XDG_CACHE_HOME"] = str(tmp_path)
    out = subprocess.run([sys.executable, "-c", "import minelab, numba; print(numba.config.CACHE_DIR)"],
                         env=env, capture_output=True, text=True, check=True).stdout.strip()
    assert out == str(tmp_path / "minelab" / "numba" / _jitcache.source_digest())
    env["NUMBA_CACHE_DIR"] = str(tmp_path / "mine")  # the user's own root is kept, with a folder per source
    out = subprocess.run([sys.executable, "-c", "import minelab, numba; print(numba.config.CACHE_DIR)"],
                         env=env, capture_output=True, text=True, check=True).stdout.strip()
    assert out == str(tmp_path / "mine" / f"minelab-{_jitcache.source_digest()}")


def test_old_source_versions_are_pruned(tmp_path):
    root = tmp_path / "numba"
    old = [root / f"{i:016x}" for i in range(8)]
    for i, folder in enumerate(old):
        folder.mkdir(parents=True)
        os.utime(folder, (1_000_000 + i, 1_000_000 + i))
    current = root / "current"
    current.mkdir()
    _jitcache._prune(root, current)
    left = sorted(p.name for p in root.iterdir())
    assert left == sorted([current.name] + [p.name for p in old[-_jitcache.KEEP:]])
