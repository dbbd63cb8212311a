"""Each kernel compiles once per argument types that really differ.

numba compiles a jitted callee again for every distinct argument type a caller passes,
and a constant argument (`f(x, 0)`, or a counter that starts at 0 while type inference
is still running) is its own type, a Literal. Each such copy of a large kernel (best's
endgame search, its chain steps, the exact solver's recount) costs compilation time on
every fresh cache and is never needed: the kernels do not branch on the constant's type.
This test plays best and csp, then reads the compiled signatures of best's kernels and of
the exact solver's two searches from numba's on-disk index of this source version and
finds none with a literal argument. (Other agents' kernels, small ones most of them, are
not held to it: the cache folder is shared, and what they compiled is not this test's.)
"""
from __future__ import annotations

import os
import pickle
from pathlib import Path

import pytest

import minelab as ml

KERNELS = ("best.", "probability.solve_kernel-", "probability.recount_with_mines-")  # index file prefixes


def _indexed_signatures(folder: Path):
    """(index file, signature text) of every compiled overload numba indexed in `folder`."""
    for path in sorted(folder.rglob("*.nbi")):
        if not path.name.startswith(KERNELS):
            continue
        with open(path, "rb") as f:
            pickle.load(f)  # numba's version
            _stamp, overloads = pickle.loads(f.read())
        for key in overloads:
            yield path.name, str(key[0])


def test_no_kernel_is_compiled_for_a_literal_argument():
    where = os.environ.get("NUMBA_CACHE_DIR")  # set by minelab's import (minelab._jitcache)
    if not where or not Path(where).is_dir():
        pytest.skip("numba's on-disk cache is not in use")
    folder = Path(where)
    chains = ml.make_agent("best", chain_fifty_fifty=True, chain_shared_cell=True, endgame_prune=True)
    for level in ("16x30x99", "8x8x10:opening", "9x9x10:no-guess"):
        ml.play(chains, level, 3, seed=1, progress=False)
        ml.play("csp", level, 3, seed=1, progress=False)
    literal = [(name, sig) for name, sig in _indexed_signatures(folder) if "Literal[" in sig]
    assert sum(1 for _ in _indexed_signatures(folder)) > 10  # the index was read
    assert not literal, "\n".join(f"{name}: {sig[:300]}" for name, sig in literal)
