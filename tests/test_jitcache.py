"""numba's cache follows the source of the whole package: a kernel compiled against other
code (a callee in another file) is never loaded from the cache. And each solver kernel is
compiled once, not again for a literal argument.

numba compiles a jitted callee again for every distinct argument type a caller passes,
and a constant argument (`f(x, 0)`, or a counter that starts at 0 while type inference
is still running) is its own type, a Literal. Each such copy of a large kernel (best's
endgame search, its chain steps, the exact solver's recount) costs compilation time on
every fresh cache and is never needed: the kernels do not branch on the constant's type.
The last test plays best and csp, then reads the compiled signatures of best's kernels
and of the exact solver's two searches from numba's on-disk index, and finds none with a
literal argument. It reads the index files of these kernels in this checkout only: the
folder of a source version is shared by every checkout of that source on the machine
(clones, worktrees), and what their own scripts compiled is not this test's. (Other
agents' kernels, small ones most of them, are not held to it.)
"""
import os
import pickle
import shutil
import subprocess
import sys
from pathlib import Path

import numba
import pytest

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
    _jitcache.prune(root, current)
    left = sorted(p.name for p in root.iterdir())
    assert left == sorted([current.name] + [p.name for p in old[-_jitcache.KEEP:]])


def _kernels():
    """best's kernels and the exact solver's two searches: the dispatchers held to it."""
    from minelab import probability
    from minelab.agents import best

    own = [v for v in vars(best).values()
           if isinstance(v, numba.core.dispatcher.Dispatcher) and v.py_func.__module__ == best.__name__]
    return own + [probability.solve_kernel, probability.recount_with_mines]


def _indexed_signatures(kernels):
    """(kernel, signature text) of every overload numba indexed on disk for `kernels`:
    each dispatcher's own index file (numba's cache locator names it after the source
    file's path, so another checkout's compilations are not read)."""
    for kernel in kernels:
        path = Path(kernel._cache._cache_file._index_path)  # numba's FunctionCache of a cache=True kernel
        if not path.is_file():
            continue
        with open(path, "rb") as f:
            pickle.load(f)  # numba's version
            _stamp, overloads = pickle.loads(f.read())
        for key in overloads:
            yield kernel.__name__, str(key[0])


def test_no_kernel_is_compiled_for_a_literal_argument():
    where = os.environ.get("NUMBA_CACHE_DIR")  # set by minelab's import (minelab._jitcache)
    if not where or not Path(where).is_dir():
        pytest.skip("numba's on-disk cache is not in use")
    chains = minelab.make_agent("best", chain_fifty_fifty=True, chain_shared_cell=True, endgame_prune=True)
    # best's decision and the solver's searches are the same kernels on every rule; best's
    # batch loop for no-guess boards would only add a compilation the notebook test makes
    for level in ("16x30x99", "8x8x10:opening"):
        minelab.play(chains, level, 3, seed=1, progress=False)
    for level in ("16x30x99", "8x8x10:opening", "9x9x10:no-guess"):  # no-guess: the deal's own solve
        minelab.play("csp", level, 3, seed=1, progress=False)
    kernels = _kernels()
    assert all(Path(k._cache._cache_path).is_relative_to(where) for k in kernels)
    indexed = list(_indexed_signatures(kernels))
    literal = [(name, sig) for name, sig in indexed if "Literal[" in sig]
    assert len(indexed) > 10  # the index was read
    assert not literal, "\n".join(f"{name}: {sig[:300]}" for name, sig in literal)
